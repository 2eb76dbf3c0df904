extension OpenAPIDocument {
    /// Who a campaign reaches and how its notifications are sent, continuing `components.schemas`.
    static let audienceSchemas = #"""
        AudienceFilter:
          description: >-
            Which valid devices of the app a campaign reaches. Every condition given must hold; a
            list matches any of its values; an empty filter is every valid device. Compiled to SQL
            with bound parameters only.
          type: object
          additionalProperties: false
          properties:
            environment:
              type: string
              enum: [sandbox, production]
            languages:
              type: array
              maxItems: 100
              description: >-
                Matched against the device's first preferred language: a bare language (`pt`)
                matches every tag with it (`pt-BR`, `pt-PT`); a longer tag matches exactly.
              items:
                type: string
            attributes:
              type: object
              description: 'Per attribute, a value it must equal, or `{"in": [values]}`.'
              additionalProperties: true
            userIDs:
              type: array
              maxItems: 1000
              items:
                type: string
            registeredSince:
              type: string
              format: date-time
            registeredBefore:
              type: string
              format: date-time
            authorization:
              type: object
              additionalProperties: false
              properties:
                statuses:
                  type: array
                  items:
                    type: string
                    enum: [notDetermined, denied, authorized, provisional, ephemeral]
                allowsAlerts:
                  type: boolean
                badge:
                  type: boolean
                sound:
                  type: boolean
                criticalAlert:
                  type: boolean
                timeSensitive:
                  type: boolean
            timeZones:
              type: array
              maxItems: 500
              items:
                type: string
        PushOptions:
          description: Request headers and payload settings over the template's defaults.
          type: object
          additionalProperties: false
          properties:
            pushType:
              type: string
              enum: [alert, background]
              description: >-
                `background` sends a silent update (`aps` holds only `content-available`, at
                priority 5, to every device whatever its alert settings) and needs a background
                template (`payload.pushType` `background`, no text), such as the shipped
                `background-refresh`; a push type the template does not send is refused with 422
                when the campaign is scheduled. Left out, the template's push type is sent.
            priority:
              type: integer
              enum: [10, 5, 1]
            expiration:
              type: string
              format: date-time
            timeToLive:
              type: integer
              minimum: 0
              maximum: 2592000
              description: Seconds after sending APNs may keep trying; 0 means once. Not with `expiration`.
            collapseID:
              type: string
              description: >-
                At most 64 bytes. A campaign without one sends its own ID, so a notification resent
                after a crash replaces the first.
            threadID:
              type: string
            category:
              type: string
            interruptionLevel:
              type: string
              enum: [passive, active, time-sensitive, critical]
            relevanceScore:
              type: number
              minimum: 0
              maximum: 1
            custom:
              type: object
              description: Keys beside `aps` (not `aps`); at most 2 KiB of JSON.
    """#
}
