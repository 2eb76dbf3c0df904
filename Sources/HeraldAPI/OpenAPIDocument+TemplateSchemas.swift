extension OpenAPIDocument {
    /// The template schemas, continuing `components.schemas`.
    static let templateSchemas = #"""
        FieldError:
          description: One of several problems reported at once.
          type: object
          required: [message]
          additionalProperties: false
          properties:
            field:
              type: string
              description: The field concerned, e.g. `strings.de.WELCOME_BODY` or `payload.badge`.
            message:
              type: string
        MessagePart:
          description: >-
            A title, subtitle or body: the strings key (also the client-mode `loc-key`) and the
            expressions filling its placeholders. Argument n fills `%n$@` (or the n-th `%@`); an
            expression reads `attributes.NAME`, `vars.NAME`, `user.id` or `device.language`, with
            `??` fallbacks to another expression or a quoted string, and may end in a format:
            `| number`, `| percent`, `| currency(EUR)`, `| date(medium)`, `| time(short)`,
            `| datetime(short)` (in the device's language and time zone).
          type: object
          required: [key]
          additionalProperties: false
          properties:
            key:
              type: string
              minLength: 1
            arguments:
              type: array
              items:
                type: string
              default: []
        TemplatePayload:
          description: Payload settings; in a template its defaults, in a preview overrides of them.
          type: object
          additionalProperties: false
          properties:
            pushType:
              type: string
              enum: [alert, background, location, voip, complication, fileprovider, mdm, liveactivity, pushtotalk]
              default: alert
            sound:
              type: string
              description: A sound file name, or `default`.
            criticalSound:
              type: object
              required: [name, volume]
              additionalProperties: false
              properties:
                name:
                  type: string
                volume:
                  type: number
                  minimum: 0
                  maximum: 1
            badge:
              type: integer
              minimum: 0
            category:
              type: string
            threadID:
              type: string
            interruptionLevel:
              type: string
              enum: [passive, active, time-sensitive, critical]
            relevanceScore:
              type: number
              minimum: 0
              maximum: 1
            mutableContent:
              type: boolean
            custom:
              type: object
              description: Keys sent beside `aps`; `aps` itself is refused.
        TemplateDocument:
          description: >-
            A whole template: what a `templates/<name>/` folder holds. Strings use Apple's format
            (`%@`, `%1$@`, `%d`, `%.2f`, `%#@name@`, `%%`); every language must have every part's
            key with placeholders that agree with the default language's. Unknown keys are
            refused. See docs/templates.md.
          type: object
          required: [defaultLanguage]
          additionalProperties: false
          properties:
            name:
              type: string
              pattern: '^[a-z0-9][a-z0-9_-]{0,63}$'
              description: In a `PUT`, optional; when given it must be the path's name.
            defaultLanguage:
              type: string
              description: The BCP 47 tag used when none of a device's languages matches.
            description:
              type: string
            title:
              $ref: '#/components/schemas/MessagePart'
            subtitle:
              $ref: '#/components/schemas/MessagePart'
            body:
              $ref: '#/components/schemas/MessagePart'
            clientFallback:
              type: boolean
              default: false
              description: In client mode, also send the default language's text for apps without the keys.
            payload:
              $ref: '#/components/schemas/TemplatePayload'
            strings:
              type: object
              description: Language (BCP 47) → strings key → format string.
              additionalProperties:
                type: object
                additionalProperties:
                  type: string
            plurals:
              type: object
              description: >-
                The plural substitutions strings name with `%#@name@`: language (as in `strings`)
                → strings key → substitution name → plural category (`zero`, `one`, `two`, `few`,
                `many`, `other`; `other` required) → the form, whose specifier (`%d`, `%lld`,
                `%.1f`) shows the counted number. The device's language's CLDR rules pick the form.
              additionalProperties:
                type: object
                additionalProperties:
                  type: object
                  additionalProperties:
                    type: object
                    additionalProperties:
                      type: string
        TemplateSummary:
          type: object
          required: [name, latestVersion, versionCount, languages, updatedAt]
          additionalProperties: false
          properties:
            name:
              type: string
            latestVersion:
              type: integer
              minimum: 1
            versionCount:
              type: integer
              minimum: 1
            languages:
              type: array
              items:
                type: string
              description: The latest version's languages, normalized BCP 47 tags.
            updatedAt:
              type: string
              format: date-time
              description: When the latest version was stored.
        TemplateList:
          type: object
          required: [templates]
          additionalProperties: false
          properties:
            templates:
              type: array
              items:
                $ref: '#/components/schemas/TemplateSummary'
        TemplateVersionInfo:
          type: object
          required: [version, contentHash, defaultLanguage, languages, createdAt, createdBy]
          properties:
            version:
              type: integer
              minimum: 1
            contentHash:
              type: string
              pattern: '^[0-9a-f]{64}$'
              description: SHA-256 of the document's canonical JSON (sorted keys, no whitespace).
            defaultLanguage:
              type: string
            languages:
              type: array
              items:
                type: string
            createdAt:
              type: string
              format: date-time
            createdBy:
              type: string
              description: The prefix of the API key that stored it, or `cli:<user>`.
        TemplateVersion:
          description: One immutable version with its document.
          allOf:
            - $ref: '#/components/schemas/TemplateVersionInfo'
            - type: object
              required: [name, document]
              properties:
                name:
                  type: string
                document:
                  $ref: '#/components/schemas/TemplateDocument'
        Template:
          type: object
          required: [name, latest, versions]
          additionalProperties: false
          properties:
            name:
              type: string
            latest:
              $ref: '#/components/schemas/TemplateVersion'
            versions:
              type: array
              description: Every version, newest first.
              items:
                $ref: '#/components/schemas/TemplateVersionInfo'
        PreviewRequest:
          description: Unknown fields are refused with 422.
          type: object
          required: [recipients]
          additionalProperties: false
          properties:
            version:
              type: integer
              minimum: 1
              description: The version to render; the latest when left out.
            variables:
              type: object
              description: Send-time variables (`vars.NAME`).
            attributes:
              type: object
              description: The recipients' app-defined attributes (`attributes.NAME`).
            userID:
              type: string
              description: The recipients' user ID (`user.id`).
            recipients:
              type: array
              minItems: 1
              maxItems: 50
              items:
                type: object
                additionalProperties: false
                properties:
                  languages:
                    type: array
                    maxItems: 10
                    items:
                      type: string
                    description: Preferred languages, most preferred first, as in a registration.
                  authorization:
                    description: >-
                      As in a registration. Left out or null, the recipient allows alerts, badges
                      and sounds (status `authorized`).
                    $ref: '#/components/schemas/Authorization'
                  timeZone:
                    type: string
                    description: >-
                      An IANA time zone for arguments formatted as dates and times
                      (`| time(short)`); UTC when left out.
            payload:
              $ref: '#/components/schemas/TemplatePayload'
        ModePreview:
          description: >-
            One mode's outcome: `payload` (with `pushType`, `bytes`, `shortened`, `payload` and
            `json`), `skipped` (with `reason`) or `failed` (with `message`).
          type: object
          required: [outcome]
          additionalProperties: false
          properties:
            outcome:
              type: string
              enum: [payload, skipped, failed]
            pushType:
              type: string
            bytes:
              type: integer
              description: The size of the encoded payload, exactly the bytes of `json`.
            shortened:
              type: boolean
              description: True when server-rendered text was shortened to fit the size limit.
            payload:
              type: object
              description: The payload as a JSON object.
            json:
              type: string
              description: The exact payload text APNs would receive.
            reason:
              type: string
              description: 'Why the recipient is skipped, e.g. `skip: not authorized for alerts`.'
            message:
              type: string
              description: Why rendering failed; names the template and language.
        Preview:
          type: object
          required: [name, version, recipients]
          additionalProperties: false
          properties:
            name:
              type: string
            version:
              type: integer
            recipients:
              type: array
              items:
                type: object
                required: [languages, language, plurals, server, client]
                additionalProperties: false
                properties:
                  languages:
                    type: array
                    items:
                      type: string
                    description: The recipient's languages, normalized.
                  language:
                    type: string
                    description: The template language negotiation chose.
                  plurals:
                    type: array
                    description: >-
                      The plural form each counted argument picks in server mode, by the chosen
                      language's CLDR rules (empty when its strings have no plurals).
                    items:
                      type: object
                      required: [part, substitution, argument, value, category]
                      additionalProperties: false
                      properties:
                        part:
                          type: string
                          enum: [title, subtitle, body]
                        substitution:
                          type: string
                          description: The name in `%#@name@`.
                        argument:
                          type: integer
                          description: The 1-based argument that counts.
                        value:
                          type: string
                        category:
                          type: string
                          enum: [zero, one, two, few, many, other]
                  server:
                    $ref: '#/components/schemas/ModePreview'
                  client:
                    $ref: '#/components/schemas/ModePreview'
    """#
}
