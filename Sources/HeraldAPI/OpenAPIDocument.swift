/// The OpenAPI 3.1 description of Herald's HTTP API, served at `/openapi.yaml`. Tests hold the
/// router to it: every route is documented here and every documented path is routed.
enum OpenAPIDocument {
    static let yaml = #"""
    openapi: 3.1.0
    info:
      title: Herald
      version: 0.1.0
      description: >-
        Herald is a self-hosted APNs provider. App backends register device tokens (with the
        user's preferred languages and notification authorization settings); admins prune dead
        tokens. Every error is an RFC 9457 problem document (`application/problem+json`) whose
        `type` is `urn:herald:problem:<slug>` and which names the offending `field` when there is
        one. Routes under `/v1` need an API key sent as `Authorization: Bearer <key>`. An `app`
        key reaches only its own app's devices; a `marketing` key may read any app's devices but
        not change them or prune; an `admin` key may do everything. A missing, malformed, unknown
        or revoked key gets 401; a key whose role or app does not allow the call gets 403.
    servers:
      - url: http://127.0.0.1:8080
    security:
      - apiKey: []
    tags:
      - name: probes
        description: Unauthenticated health, readiness, metrics and this document.
      - name: devices
        description: The token registry of one app.
      - name: admin
        description: Admin-only maintenance.
    paths:
      /healthz:
        get:
          operationId: getHealth
          summary: Liveness probe
          description: Answers as long as the process is serving HTTP.
          tags: [probes]
          security: []
          responses:
            '200':
              description: The process is up; `status` is `ok`.
              content:
                application/json:
                  schema:
                    $ref: '#/components/schemas/Status'
                  example:
                    status: ok
      /readyz:
        get:
          operationId: getReadiness
          summary: Readiness probe
          description: Ready when the database answers and its schema is current.
          tags: [probes]
          security: []
          responses:
            '200':
              description: Ready; `status` is `ready`.
              content:
                application/json:
                  schema:
                    $ref: '#/components/schemas/Status'
                  example:
                    status: ready
            '503':
              description: Not ready (`not-ready`); `detail` says why.
              content:
                application/problem+json:
                  schema:
                    $ref: '#/components/schemas/Problem'
      /metrics:
        get:
          operationId: getMetrics
          summary: Prometheus metrics
          description: This process's metrics in the Prometheus text exposition format 0.0.4.
          tags: [probes]
          security: []
          responses:
            '200':
              description: The metrics.
              content:
                text/plain:
                  schema:
                    type: string
      /openapi.yaml:
        get:
          operationId: getOpenAPIDocument
          summary: This OpenAPI document
          tags: [probes]
          security: []
          responses:
            '200':
              description: The OpenAPI 3.1 description of this API.
              content:
                application/yaml:
                  schema:
                    type: string
      /v1/apps/{bundleID}/devices:
        parameters:
          - $ref: '#/components/parameters/bundleID'
        get:
          operationId: listDevices
          summary: List an app's devices
          description: >-
            Pages through the app's devices in ascending `id` order (keyset paging). Filters are
            combined with AND. Any other query parameter is refused with 422. Allowed for the
            app's own `app` key, `marketing` keys and `admin` keys.
          tags: [devices]
          parameters:
            - name: userID
              in: query
              description: Only devices registered with exactly this user ID.
              schema:
                type: string
            - name: language
              in: query
              description: >-
                Only devices whose preferred languages include this BCP 47 tag (normalized before
                matching, so `pt_br` finds `pt-BR`). Matches the tag exactly, not by prefix.
              schema:
                type: string
                examples: [pt-BR]
            - name: valid
              in: query
              description: Only valid (`true`) or only invalidated (`false`) devices.
              schema:
                type: boolean
            - name: cursor
              in: query
              description: The `nextCursor` of the previous page; omit for the first page.
              schema:
                type: string
                pattern: '^[0-9]+$'
            - name: limit
              in: query
              description: Devices per page.
              schema:
                type: integer
                minimum: 1
                maximum: 1000
                default: 100
          responses:
            '200':
              description: One page of devices.
              content:
                application/json:
                  schema:
                    $ref: '#/components/schemas/DevicePage'
            '401':
              $ref: '#/components/responses/Unauthorized'
            '403':
              $ref: '#/components/responses/Forbidden'
            '404':
              $ref: '#/components/responses/UnknownApp'
            '422':
              description: >-
                A query parameter is unknown or has a bad value (`invalid-field`, `field` names the
                parameter).
              content:
                application/problem+json:
                  schema:
                    $ref: '#/components/schemas/Problem'
            '500':
              $ref: '#/components/responses/InternalError'
      /v1/apps/{bundleID}/devices/{token}:
        parameters:
          - $ref: '#/components/parameters/bundleID'
          - $ref: '#/components/parameters/token'
        put:
          operationId: registerDevice
          summary: Register or update a device token
          description: >-
            Creates the registration or replaces every field of an existing one (fields left out
            take their defaults; nothing is merged). Sets `registeredAt` to now and makes an
            invalidated token valid again. Allowed for the app's own `app` key and `admin` keys;
            `marketing` keys get 403. The body is at most 64 KiB.
          tags: [devices]
          requestBody:
            required: true
            content:
              application/json:
                schema:
                  $ref: '#/components/schemas/Registration'
                example:
                  environment: production
                  languages: [pt-BR, en]
                  authorization:
                    status: authorized
                    sound: false
                  timeZone: America/Sao_Paulo
                  userID: user-42
                  attributes:
                    plan: pro
          responses:
            '200':
              description: An existing registration was updated.
              content:
                application/json:
                  schema:
                    $ref: '#/components/schemas/Device'
            '201':
              description: The token was new for this app and is now registered.
              content:
                application/json:
                  schema:
                    $ref: '#/components/schemas/Device'
            '400':
              description: >-
                The body is not JSON or not a JSON object (`invalid-request`), or the path token is
                not 8 to 200 hex digits of even length (`invalid-device-token`, field `token`).
              content:
                application/problem+json:
                  schema:
                    $ref: '#/components/schemas/Problem'
            '401':
              $ref: '#/components/responses/Unauthorized'
            '403':
              $ref: '#/components/responses/Forbidden'
            '404':
              $ref: '#/components/responses/UnknownApp'
            '413':
              $ref: '#/components/responses/PayloadTooLarge'
            '422':
              $ref: '#/components/responses/InvalidField'
            '500':
              $ref: '#/components/responses/InternalError'
        get:
          operationId: getDevice
          summary: Read a device registration
          description: Allowed for the app's own `app` key, `marketing` keys and `admin` keys.
          tags: [devices]
          responses:
            '200':
              description: The registration.
              content:
                application/json:
                  schema:
                    $ref: '#/components/schemas/Device'
            '400':
              $ref: '#/components/responses/InvalidDeviceToken'
            '401':
              $ref: '#/components/responses/Unauthorized'
            '403':
              $ref: '#/components/responses/Forbidden'
            '404':
              $ref: '#/components/responses/DeviceNotFound'
            '500':
              $ref: '#/components/responses/InternalError'
        delete:
          operationId: deleteDevice
          summary: Unregister a device token
          description: >-
            Deletes the registration. Allowed for the app's own `app` key and `admin` keys;
            `marketing` keys get 403.
          tags: [devices]
          responses:
            '204':
              description: Deleted.
            '400':
              $ref: '#/components/responses/InvalidDeviceToken'
            '401':
              $ref: '#/components/responses/Unauthorized'
            '403':
              $ref: '#/components/responses/Forbidden'
            '404':
              $ref: '#/components/responses/DeviceNotFound'
            '500':
              $ref: '#/components/responses/InternalError'
      /v1/apps/{bundleID}/devices/import:
        parameters:
          - $ref: '#/components/parameters/bundleID'
        post:
          operationId: importDevices
          summary: Import registrations from NDJSON
          description: >-
            Registers many tokens, one JSON object (an `ImportLine`) per line, e.g. when moving
            from another provider. The body is streamed and has no overall size limit; each line
            is at most 16 KiB, and blank lines are skipped. Lines are written in batches as they
            arrive, so good lines are stored even when others are refused; refused lines are
            reported by number, and the answer is 200 however many were refused. Each line is
            applied like a `PUT` of that token. Allowed for the app's own `app` key and `admin`
            keys; `marketing` keys get 403.
          tags: [devices]
          requestBody:
            required: true
            description: Newline-delimited `ImportLine` objects.
            content:
              application/x-ndjson:
                schema:
                  type: string
                example: |
                  {"token":"a1b2c3d4e5f60718","languages":["fr-FR"],"authorization":{"status":"denied"}}
                  {"token":"0f1e2d3c4b5a6978","environment":"sandbox","userID":"user-7"}
          responses:
            '200':
              description: What the import did.
              content:
                application/json:
                  schema:
                    $ref: '#/components/schemas/ImportSummary'
            '401':
              $ref: '#/components/responses/Unauthorized'
            '403':
              $ref: '#/components/responses/Forbidden'
            '404':
              $ref: '#/components/responses/UnknownApp'
            '500':
              $ref: '#/components/responses/InternalError'
      /v1/admin/prune:
        post:
          operationId: pruneDevices
          summary: Delete dead device tokens
          description: >-
            Deletes devices invalidated before `invalidatedBefore` OR last registered before
            `notRegisteredSince` (at least one of the two is required), optionally for one app
            only, in batches. A dry run deletes nothing and counts what would go. Every prune is
            written to the audit log. Admin keys only; other keys get 403. The body is at most
            64 KiB.
          tags: [admin]
          requestBody:
            required: true
            content:
              application/json:
                schema:
                  $ref: '#/components/schemas/PruneRequest'
                example:
                  dryRun: true
                  invalidatedBefore: '2026-01-31T00:00:00Z'
          responses:
            '200':
              description: What was (or, in a dry run, would be) deleted.
              content:
                application/json:
                  schema:
                    $ref: '#/components/schemas/PruneSummary'
            '400':
              $ref: '#/components/responses/InvalidRequest'
            '401':
              $ref: '#/components/responses/Unauthorized'
            '403':
              $ref: '#/components/responses/Forbidden'
            '404':
              description: '`app` names no known app (`unknown-app`).'
              content:
                application/problem+json:
                  schema:
                    $ref: '#/components/schemas/Problem'
            '413':
              $ref: '#/components/responses/PayloadTooLarge'
            '422':
              $ref: '#/components/responses/InvalidField'
            '500':
              $ref: '#/components/responses/InternalError'
    components:
      securitySchemes:
        apiKey:
          type: http
          scheme: bearer
          description: >-
            An API key (`hk_` and 64 hex digits) with role `app` (one app), `marketing` or
            `admin`.
      parameters:
        bundleID:
          name: bundleID
          in: path
          required: true
          description: >-
            The app's bundle ID (its APNs topic): letters, digits, `-` and `.`, up to 155
            characters. An unknown or malformed bundle ID gets 404 `unknown-app`.
          schema:
            type: string
            maxLength: 155
            examples: [com.example.app]
        token:
          name: token
          in: path
          required: true
          description: The device token as 8 to 200 hex digits (either case), an even number of them.
          schema:
            type: string
            pattern: '^([0-9A-Fa-f]{2}){4,100}$'
      responses:
        InvalidRequest:
          description: The body is not JSON or not a JSON object (`invalid-request`).
          content:
            application/problem+json:
              schema:
                $ref: '#/components/schemas/Problem'
        InvalidDeviceToken:
          description: >-
            The path token is not 8 to 200 hex digits of even length (`invalid-device-token`,
            field `token`).
          content:
            application/problem+json:
              schema:
                $ref: '#/components/schemas/Problem'
        Unauthorized:
          description: >-
            No `Authorization: Bearer <key>` header, or the key is unknown or revoked
            (`unauthorized`).
          headers:
            WWW-Authenticate:
              description: Always `Bearer`.
              schema:
                type: string
          content:
            application/problem+json:
              schema:
                $ref: '#/components/schemas/Problem'
        Forbidden:
          description: >-
            The key's role does not allow this call, or it is an `app` key for another app
            (`forbidden`).
          content:
            application/problem+json:
              schema:
                $ref: '#/components/schemas/Problem'
        UnknownApp:
          description: No app has this bundle ID (`unknown-app`, field `bundleID`).
          content:
            application/problem+json:
              schema:
                $ref: '#/components/schemas/Problem'
        DeviceNotFound:
          description: >-
            No app has this bundle ID (`unknown-app`, field `bundleID`), or the token is not
            registered for this app (`not-found`).
          content:
            application/problem+json:
              schema:
                $ref: '#/components/schemas/Problem'
        PayloadTooLarge:
          description: The body is larger than 64 KiB (`payload-too-large`).
          content:
            application/problem+json:
              schema:
                $ref: '#/components/schemas/Problem'
        InvalidField:
          description: >-
            A field is missing, unknown or invalid (`invalid-field`); `field` names it as the
            caller wrote it, e.g. `languages[2]` or `authorization.status`.
          content:
            application/problem+json:
              schema:
                $ref: '#/components/schemas/Problem'
        InternalError:
          description: Herald could not complete the request (`internal`); the server log has the details.
          content:
            application/problem+json:
              schema:
                $ref: '#/components/schemas/Problem'
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
                unauthorized, forbidden, unknown-app, not-found, method-not-allowed,
                payload-too-large, invalid-field, not-ready, internal (or `http-<code>` for other
                HTTP errors).
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
                at fault.
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
