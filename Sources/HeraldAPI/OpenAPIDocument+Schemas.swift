extension OpenAPIDocument {
    /// The registry's schemas, continuing `components`.
    static let schemas = #"""
      schemas:
        Status:
          type: object
          required: [status]
          properties:
            status:
              type: string
              enum: [ok, ready]
        Problem:
          description: An RFC 9457 problem document, the only shape of error Herald returns.
          type: object
          required: [type, title, status, detail]
          properties:
            type:
              type: string
              description: >-
                `urn:herald:problem:` and a slug: invalid-request, invalid-device-token,
                unauthorized, forbidden, unknown-app, unknown-template, unknown-template-version,
                unknown-campaign, invalid-transition, not-found, method-not-allowed, payload-too-large, invalid-field, not-ready,
                internal (or `http-<code>` for other HTTP errors).
              pattern: '^urn:herald:problem:[a-z0-9-]+$'
              examples: ['urn:herald:problem:invalid-field']
            title:
              type: string
              description: A short summary of the problem type.
            status:
              type: integer
              description: The HTTP status code.
            detail:
              type: string
              description: What is wrong, for the caller; never contains a token, key or SQL.
            field:
              type: string
              description: >-
                The offending field or parameter as the caller wrote it, e.g. `languages[2]`,
                `authorization.status`, `token`, `bundleID`, `limit`. Omitted when no one field is
                at fault; with `errors`, the first one's.
            errors:
              type: array
              description: Every problem, when several are reported at once (an invalid template).
              items:
                $ref: '#/components/schemas/FieldError'
        Authorization:
          description: >-
            The user's notification settings as the app reads them from
            `UNUserNotificationCenter.notificationSettings()`. In a request, `status` is required
            and a flag left out (or null) defaults to true for `alert`, `badge` and `sound` when
            the status is `authorized`, `provisional` or `ephemeral` and to false otherwise;
            `criticalAlert` and `timeSensitive` default to false. Unknown fields are refused.
          type: object
          required: [status]
          additionalProperties: false
          properties:
            status:
              type: string
              enum: [notDetermined, denied, authorized, provisional, ephemeral]
            alert:
              type: [boolean, 'null']
            badge:
              type: [boolean, 'null']
            sound:
              type: [boolean, 'null']
            criticalAlert:
              type: [boolean, 'null']
            timeSensitive:
              type: [boolean, 'null']
        Registration:
          description: >-
            What an app backend says about a device. Every field is optional and may be null,
            which means its default. Unknown fields are refused with 422.
          type: object
          additionalProperties: false
          properties:
            environment:
              type: [string, 'null']
              enum: [sandbox, production, null]
              description: The APNs environment; defaults to the app's default environment.
            languages:
              type: [array, 'null']
              description: >-
                Preferred languages as BCP 47 tags (`_` accepted as separator), most preferred
                first; at most 10. Stored normalized (`zh-Hant-HK`, `pt-BR`) without duplicates.
                Defaults to none.
              maxItems: 10
              items:
                type: string
                maxLength: 64
            authorization:
              description: Defaults to `notDetermined` with every flag false.
              oneOf:
                - $ref: '#/components/schemas/Authorization'
                - type: 'null'
            timeZone:
              type: [string, 'null']
              description: An IANA time zone name such as `Europe/Paris` or `UTC`.
            userID:
              type: [string, 'null']
              description: The app's own user ID; 1 to 256 characters, no control characters.
              minLength: 1
              maxLength: 256
            attributes:
              type: [object, 'null']
              description: >-
                App-defined data Herald stores but does not interpret; at most 4096 bytes as
                compact JSON. Defaults to `{}`.
        ImportLine:
          description: One line of an NDJSON import, a `Registration` plus its `token`.
          type: object
          required: [token]
          additionalProperties: false
          properties:
            token:
              type: string
              description: The device token as 8 to 200 hex digits, an even number of them.
              pattern: '^([0-9A-Fa-f]{2}){4,100}$'
            environment:
              $ref: '#/components/schemas/Registration/properties/environment'
            languages:
              $ref: '#/components/schemas/Registration/properties/languages'
            authorization:
              $ref: '#/components/schemas/Registration/properties/authorization'
            timeZone:
              $ref: '#/components/schemas/Registration/properties/timeZone'
            userID:
              $ref: '#/components/schemas/Registration/properties/userID'
            attributes:
              $ref: '#/components/schemas/Registration/properties/attributes'
        Device:
          description: >-
            A registered device. The token itself is never returned, only its last 8 hex digits.
            Optional fields are omitted when not set.
          type: object
          required:
            [id, tokenSuffix, environment, languages, authorization, attributes, bucket, valid, registeredAt, createdAt]
          additionalProperties: false
          properties:
            id:
              type: integer
              format: int64
              description: Herald's ID of the registration; lists are ordered by it.
            tokenSuffix:
              type: string
              pattern: '^[0-9a-f]{8}$'
              description: The last 8 hex digits of the token, lowercase.
            environment:
              type: string
              enum: [sandbox, production]
            languages:
              type: array
              items:
                type: string
              description: Normalized BCP 47 tags, most preferred first.
            authorization:
              description: The stored settings, with every flag present.
              allOf:
                - $ref: '#/components/schemas/Authorization'
                - required: [status, alert, badge, sound, criticalAlert, timeSensitive]
                  properties:
                    alert:
                      type: boolean
                    badge:
                      type: boolean
                    sound:
                      type: boolean
                    criticalAlert:
                      type: boolean
                    timeSensitive:
                      type: boolean
            timeZone:
              type: string
            userID:
              type: string
            attributes:
              type: object
            bucket:
              type: integer
              minimum: 0
              maximum: 255
              description: The token's virtual shard, a stable hash of the token.
            valid:
              type: boolean
              description: False once APNs or an admin invalidated the token; a new registration makes it true again.
            registeredAt:
              type: string
              format: date-time
              description: Server time of the latest registration.
            createdAt:
              type: string
              format: date-time
            invalidatedAt:
              type: string
              format: date-time
            invalidationReason:
              type: string
              description: Why the token was invalidated, e.g. an APNs reason such as `Unregistered`.
            apnsUnregisteredAt:
              type: string
              format: date-time
              description: The timestamp of APNs's latest 410 answer for this token.
        DevicePage:
          type: object
          required: [devices]
          additionalProperties: false
          properties:
            devices:
              type: array
              items:
                $ref: '#/components/schemas/Device'
            nextCursor:
              type: string
              pattern: '^[0-9]+$'
              description: Pass as `cursor` for the next page; omitted on the last page.
        ImportSummary:
          type: object
          required: [lines, created, updated, rejected, errors, errorsTruncated]
          additionalProperties: false
          properties:
            lines:
              type: integer
              description: Non-blank lines read.
            created:
              type: integer
              description: Tokens that were new for this app.
            updated:
              type: integer
              description: Tokens that were already registered and were replaced.
            rejected:
              type: integer
              description: Lines refused; none of them changed anything.
            errors:
              type: array
              description: The first 1000 refused lines, in order.
              maxItems: 1000
              items:
                type: object
                required: [line, detail]
                additionalProperties: false
                properties:
                  line:
                    type: integer
                    minimum: 1
                    description: The 1-based line number in the body.
                  field:
                    type: string
                    description: The offending field, when one is at fault.
                  detail:
                    type: string
            errorsTruncated:
              type: boolean
              description: True when more than 1000 lines were refused and `errors` lists only the first 1000.
        PruneRequest:
          description: >-
            At least one of `invalidatedBefore` and `notRegisteredSince` is required, so a prune
            can never mean everything. Times are RFC 3339, with or without fractional seconds.
            Unknown fields are refused with 422.
          type: object
          additionalProperties: false
          anyOf:
            - required: [invalidatedBefore]
            - required: [notRegisteredSince]
          properties:
            dryRun:
              type: [boolean, 'null']
              default: false
              description: Count what would be deleted without deleting it.
            invalidatedBefore:
              type: [string, 'null']
              format: date-time
              description: Delete devices invalidated before this time.
            notRegisteredSince:
              type: [string, 'null']
              format: date-time
              description: Delete devices, valid or not, whose latest registration is older than this time.
            app:
              type: [string, 'null']
              description: Limit the prune to the app with this bundle ID.
        PruneSummary:
          type: object
          required: [dryRun, total, byReason, batches]
          additionalProperties: false
          properties:
            dryRun:
              type: boolean
            total:
              type: integer
              description: Devices deleted (or, in a dry run, that would be deleted).
            byReason:
              type: object
              description: >-
                Counts by invalidation reason; devices never invalidated count as `stale`.
              additionalProperties:
                type: integer
            batches:
              type: integer
              description: Delete batches run; 0 in a dry run.
    """#
}
