extension OpenAPIDocument {
    /// The campaign schemas, continuing `components.schemas`.
    static let campaignSchemas = #"""
        CampaignState:
          type: string
          description: draft → scheduled → running ⇄ paused → completed | cancelled | failed.
          enum: [draft, scheduled, running, paused, completed, cancelled, failed]
        CampaignDraft:
          description: A new campaign. Unknown fields are refused.
          type: object
          required: [app, name, templateName]
          additionalProperties: false
          properties:
            app:
              type: string
              description: The app's bundle ID.
            name:
              type: string
              minLength: 1
              maxLength: 200
            notes:
              type: [string, 'null']
              maxLength: 10000
            templateName:
              type: string
              pattern: '^[a-z0-9][a-z0-9_-]{0,63}$'
            localization:
              type: string
              enum: [server, client]
              default: server
              description: >-
                `server`: finished text in each device's best language; `client`: `loc-key` and
                `loc-args` for the app's own strings.
            variables:
              type: object
              description: Send-time variables (`vars.NAME` in templates); at most 4 KiB of JSON.
            audience:
              $ref: '#/components/schemas/AudienceFilter'
            pushOptions:
              $ref: '#/components/schemas/PushOptions'
            sendAt:
              type: [string, 'null']
              format: date-time
              description: When to start once scheduled; absent or null means at once.
            rateLimit:
              type: [integer, 'null']
              minimum: 1
              maximum: 1000000
              description: Notifications per second, per Herald instance; absent means as fast as APNs takes them.
            variants:
              $ref: '#/components/schemas/VariantList'
            holdoutPercent:
              type: number
              minimum: 0
              maximum: 50
              default: 0
              description: >-
                The share of the audience held out (no notification, a `heldOut` ledger row), the
                group conversions are compared with. Kept to 1/100 of a percent.
            attributionWindowHours:
              type: integer
              minimum: 1
              maximum: 720
              default: 24
              description: How long after a notification (or being held out) a conversion counts for the campaign.
            delivery:
              $ref: '#/components/schemas/Delivery'
            quietHours:
              $ref: '#/components/schemas/QuietHoursMode'
        CampaignPatch:
          description: Changes to a draft; the fields of `CampaignDraft` except `app`, all optional.
          type: object
          additionalProperties: false
          properties:
            name:
              type: string
            notes:
              type: [string, 'null']
            templateName:
              type: string
            localization:
              type: string
              enum: [server, client]
            variables:
              type: object
            audience:
              $ref: '#/components/schemas/AudienceFilter'
            pushOptions:
              $ref: '#/components/schemas/PushOptions'
            sendAt:
              type: [string, 'null']
              format: date-time
            rateLimit:
              type: [integer, 'null']
            variants:
              oneOf:
                - $ref: '#/components/schemas/VariantList'
                - type: 'null'
              description: '`null` or `[]` removes the variants.'
            holdoutPercent:
              type: number
              minimum: 0
              maximum: 50
            attributionWindowHours:
              type: integer
              minimum: 1
              maximum: 720
            delivery:
              oneOf:
                - $ref: '#/components/schemas/Delivery'
                - type: 'null'
            quietHours:
              $ref: '#/components/schemas/QuietHoursMode'
        Delivery:
          description: >-
            `{"mode": "now"}` (the default): at `sendAt`, or at once. `{"mode": "localTime", "date":
            "2026-12-01", "time": "10:00"}`: each device at that wall-clock time in its own time zone
            (the app's default zone for devices without one; daylight saving included); the campaign
            starts with the first zone on Earth to reach it and runs until the last (about 26 hours).
            `latePolicy` says what becomes of a zone whose moment had passed when the campaign was
            scheduled: `send` it at once (the default) or `skip` it (reason `localTimePassed`). Not
            with `sendAt`; a moment past in every zone cannot be scheduled.
          type: object
          required: [mode]
          additionalProperties: false
          properties:
            mode:
              type: string
              enum: [now, localTime]
            date:
              type: string
              pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'
            time:
              type: string
              pattern: '^[0-9]{2}:[0-9]{2}$'
            latePolicy:
              type: string
              enum: [send, skip]
        QuietHoursMode:
          type: string
          enum: [hold, skip, ignore]
          default: hold
          description: >-
            What the campaign does about the app's quiet hours (e.g. 21:00-08:00 in each device's
            zone): `hold` a zone's devices until they end, `skip` them (reason `quietHours`), or
            `ignore` them.
        VariantList:
          description: >-
            The messages of an A/B test: 0 (the campaign sends its own message) or 2 to 5. A device's
            variant (or the holdout) is a pure function of the campaign and the device.
          type: array
          maxItems: 5
          items:
            $ref: '#/components/schemas/Variant'
        Variant:
          description: One message of an A/B test; its settings lie over the campaign's.
          type: object
          additionalProperties: false
          properties:
            name:
              type: string
              pattern: '^[A-Za-z0-9_-][A-Za-z0-9 _-]{0,31}$'
              description: Unique in the campaign (ignoring case); the variant's letter (A, B, …) when absent.
            templateName:
              type: string
              pattern: '^[a-z0-9][a-z0-9_-]{0,63}$'
              description: The campaign's template when absent.
            templateVersion:
              type: integer
              minimum: 1
              description: The template's latest version when the campaign is scheduled, when absent (pinned then).
            variables:
              type: object
              description: Variables over the campaign's, name by name.
            pushOptions:
              $ref: '#/components/schemas/PushOptions'
            weight:
              type: integer
              minimum: 1
              maximum: 1000
              default: 1
              description: The variant's share of the devices not held out, against the other weights.
        CampaignCounters:
          description: '`audienceSize == accepted + failed + skipped + deferred + unsent + heldOut + pending`, always.'
          type: object
          required: [audienceSize, sent, accepted, failed, failedByReason, invalidated, skipped, deferred, unsent, heldOut,
                     pending, variants, zones]
          properties:
            audienceSize:
              type: integer
            sent:
              type: integer
              description: Answered by APNs (accepted + failed).
            accepted:
              type: integer
            failed:
              type: integer
            failedByReason:
              type: object
              additionalProperties:
                type: integer
            invalidated:
              type: integer
              description: Devices this campaign's answers invalidated (part of failed).
            skipped:
              type: integer
              description: Not sent on purpose (alerts not allowed, an argument without a value).
            deferred:
              type: integer
              description: >-
                APNs answered 429: the device is tried again after a backoff of minutes
                (`HERALD_ENGINE_DEFERRED_ATTEMPTS` tries in all); what is left once they run out.
            unsent:
              type: integer
              description: Not reached (cancelled, failed, or the device left the audience).
            heldOut:
              type: integer
              description: In the holdout (no notification, on purpose).
            pending:
              type: integer
            variants:
              type: array
              description: Recorded outcomes by message, in the campaign's order (one, `default`, without variants).
              items:
                type: object
                required: [name, assigned, accepted, failed, skipped, deferred, unsent]
                properties:
                  name:
                    type: string
                  assigned:
                    type: integer
                  accepted:
                    type: integer
                  failed:
                    type: integer
                  skipped:
                    type: integer
                  deferred:
                    type: integer
                  unsent:
                    type: integer
            zones:
              type: array
              description: Progress by time zone, for a campaign sent in zones (local time, quiet hours); empty otherwise.
              items:
                type: object
                required: [effectiveTimeZone, state, devices, done]
                properties:
                  timeZone:
                    type: string
                    description: The devices' registered zone; absent for devices without one.
                  effectiveTimeZone:
                    type: string
                    description: The zone their clock is read in (theirs, or the app's default).
                  state:
                    type: string
                    enum: [waiting, sending, done]
                  notBefore:
                    type: string
                    format: date-time
                    description: When a waiting zone is due (its local moment, or the end of its quiet hours).
                  devices:
                    type: integer
                  done:
                    type: integer
        Campaign:
          type: object
          required: [id, app, name, state, templateName, localization, variables, audience, pushOptions, variants,
                     holdoutPercent, attributionWindowHours, delivery, quietHours, counters, createdAt, updatedAt]
          properties:
            id:
              type: string
              format: uuid
              description: The campaign's ID, and the namespace of its apns-ids (UUIDv5 of campaign and device).
            app:
              type: string
            name:
              type: string
            notes:
              type: string
            state:
              $ref: '#/components/schemas/CampaignState'
            templateName:
              type: string
            templateVersion:
              type: integer
              description: Pinned when the campaign is scheduled.
            localization:
              type: string
              enum: [server, client]
            variables:
              type: object
            audience:
              $ref: '#/components/schemas/AudienceFilter'
            pushOptions:
              $ref: '#/components/schemas/PushOptions'
            sendAt:
              type: string
              format: date-time
            rateLimit:
              type: integer
            variants:
              type: array
              description: Each variant's template version is pinned when the campaign is scheduled.
              items:
                $ref: '#/components/schemas/Variant'
            holdoutPercent:
              type: number
            attributionWindowHours:
              type: integer
            delivery:
              $ref: '#/components/schemas/Delivery'
            quietHours:
              $ref: '#/components/schemas/QuietHoursMode'
            counters:
              $ref: '#/components/schemas/CampaignCounters'
            failureReason:
              type: string
            createdAt:
              type: string
              format: date-time
            updatedAt:
              type: string
              format: date-time
            startedAt:
              type: string
              format: date-time
            finishedAt:
              type: string
              format: date-time
        CampaignPage:
          type: object
          required: [campaigns]
          properties:
            campaigns:
              type: array
              items:
                $ref: '#/components/schemas/Campaign'
            nextCursor:
              type: string
        DeliveryPage:
          type: object
          required: [deliveries]
          properties:
            deliveries:
              type: array
              items:
                type: object
                required: [deviceID, outcome, recordedAt]
                properties:
                  deviceID:
                    type: integer
                  tokenSuffix:
                    type: string
                    description: The token's last 8 hex digits (absent once the device is pruned).
                  userID:
                    type: string
                  outcome:
                    type: string
                    enum: [accepted, failed, skipped, deferred, unsent, heldOut]
                  status:
                    type: integer
                  reason:
                    type: string
                  apnsID:
                    type: string
                    format: uuid
                  language:
                    type: string
                  variant:
                    type: string
                    description: The message the device was assigned; absent for the holdout.
                  recordedAt:
                    type: string
                    format: date-time
            nextCursor:
              type: string
    """#
}
