extension OpenAPIDocument {
    /// Events and campaign reports, continuing `paths`.
    static let experimentPaths = #"""
      /v1/apps/{bundleID}:
        parameters:
          - $ref: '#/components/parameters/bundleID'
        get:
          operationId: showApp
          summary: An app and the settings campaigns obey (never its signing key)
          description: Any key that may read the app's devices (admin, marketing, the app's own).
          tags: [admin]
          responses:
            '200':
              description: The app.
              content:
                application/json:
                  schema:
                    $ref: '#/components/schemas/App'
            '401':
              $ref: '#/components/responses/Unauthorized'
            '403':
              $ref: '#/components/responses/Forbidden'
            '404':
              $ref: '#/components/responses/UnknownApp'
            '500':
              $ref: '#/components/responses/InternalError'
        patch:
          operationId: editAppSettings
          summary: Set the app's default time zone, quiet hours and frequency caps (admin)
          description: >-
            Fields left out stay; `null` clears one (devices without a zone are then read in UTC;
            no quiet hours; no caps). Audited. A campaign takes the settings as they are when it
            starts.
          tags: [admin]
          requestBody:
            required: true
            content:
              application/json:
                schema:
                  $ref: '#/components/schemas/AppSettings'
          responses:
            '200':
              description: The app after the change.
              content:
                application/json:
                  schema:
                    $ref: '#/components/schemas/App'
            '400':
              $ref: '#/components/responses/InvalidRequest'
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
      /v1/apps/{bundleID}/events:
        parameters:
          - $ref: '#/components/parameters/bundleID'
        post:
          operationId: recordEvents
          summary: Report opens and conversions
          description: >-
            Up to 1,000 events a call (a body of at most 1 MiB), from the app's own key (or an
            admin's). An `opened` event names the notification by its apns-id (the
            `UNNotificationRequest` identifier) and is attributed to the campaign, variant and
            language that sent it; an apns-id no campaign of the app sent is refused. A `converted`
            event names its device (`token`) or user (`userID`) and is attributed to the campaign
            that most recently reached that device or user, or held it out, within the campaign's
            attribution window (otherwise it is stored unattributed). All or nothing: one bad
            event gets 422 naming it (`events[3].apnsID`) and nothing is stored. The same event
            again (the same open; the same conversion `id`, or the same conversion in every
            field) counts once.
          tags: [events]
          requestBody:
            required: true
            content:
              application/json:
                schema:
                  $ref: '#/components/schemas/EventBatch'
                example:
                  events:
                    - type: opened
                      apnsID: 1b4e28ba-2fa1-51d2-883f-0016d3cca427
                      occurredAt: '2026-12-01T09:14:03Z'
                    - type: converted
                      name: purchase
                      value: 24.9
                      userID: user-42
                      occurredAt: '2026-12-01T09:20:41Z'
          responses:
            '200':
              description: What was stored.
              content:
                application/json:
                  schema:
                    $ref: '#/components/schemas/EventReceipt'
            '400':
              $ref: '#/components/responses/InvalidRequest'
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
      /v1/campaigns/{id}/report:
        parameters:
          - $ref: '#/components/parameters/campaignID'
        get:
          operationId: campaignReport
          summary: Sent, opened and converted, by variant and for the holdout
          description: >-
            Open rates are over notifications APNs accepted; conversion rates over the devices
            assigned to the group (so a variant compares fairly with the holdout, which holds out
            devices of every kind). Rates carry a 95 % Wilson interval; `comparisons` holds a
            two-sided two-proportion z-test of each variant against the holdout (conversion rate)
            and of each pair of variants (open and conversion rates).
          tags: [campaigns]
          responses:
            '200':
              description: The report.
              content:
                application/json:
                  schema:
                    $ref: '#/components/schemas/CampaignReport'
            '401':
              $ref: '#/components/responses/Unauthorized'
            '403':
              $ref: '#/components/responses/Forbidden'
            '404':
              $ref: '#/components/responses/UnknownCampaign'
            '422':
              $ref: '#/components/responses/InvalidField'
            '500':
              $ref: '#/components/responses/InternalError'
    """#

    /// The event and report schemas, continuing `components.schemas`.
    static let experimentSchemas = #"""
        App:
          type: object
          required: [bundleID, teamID, keyID, defaultEnvironment, frequencyCaps, createdAt]
          properties:
            bundleID:
              type: string
            teamID:
              type: string
            keyID:
              type: string
            defaultEnvironment:
              type: string
              enum: [sandbox, production]
            defaultTimeZone:
              type: string
              description: The zone of devices that registered none; absent means UTC.
            quietHours:
              type: string
              description: HH:MM-HH:MM in each device's own zone; absent means none.
            frequencyCaps:
              type: array
              items:
                type: string
                description: N/Xd or N/Xh, at most N campaign notifications per device in any X days or hours.
            createdAt:
              type: string
              format: date-time
        AppSettings:
          type: object
          additionalProperties: false
          properties:
            defaultTimeZone:
              type: [string, 'null']
              description: An IANA zone name, e.g. Europe/Berlin.
            quietHours:
              type: [string, 'null']
              pattern: '^[0-9]{2}:[0-9]{2}-[0-9]{2}:[0-9]{2}$'
              description: Its two ends differ; it may cross midnight (21:00-08:00).
            frequencyCaps:
              type: [array, 'null']
              maxItems: 5
              items:
                type: string
                pattern: '^[0-9]+/[0-9]+[dh]$'
                description: 1 to 1000 notifications in 1 hour to 90 days.
        EventBatch:
          type: object
          required: [events]
          additionalProperties: false
          properties:
            events:
              type: array
              minItems: 1
              maxItems: 1000
              items:
                $ref: '#/components/schemas/Event'
        Event:
          type: object
          required: [type, occurredAt]
          additionalProperties: false
          properties:
            type:
              type: string
              enum: [opened, converted]
            occurredAt:
              type: string
              format: date-time
              description: The device's time; not more than 5 minutes ahead of Herald's, not more than a year ago.
            apnsID:
              type: string
              format: uuid
              description: Opens only, required there.
            token:
              type: string
              pattern: '^([0-9A-Fa-f]{2}){4,100}$'
              description: The converting device (conversions need `token` or `userID`).
            userID:
              type: string
              maxLength: 256
            name:
              type: string
              minLength: 1
              maxLength: 64
              description: Conversions only, required there, e.g. `purchase`.
            value:
              type: number
              description: Conversions only; at most 10^12 in size.
            id:
              type: string
              minLength: 1
              maxLength: 128
              description: The app's own ID for the event; a repeat with the same ID counts once.
        EventReceipt:
          type: object
          required: [received, stored, duplicates, attributed]
          properties:
            received:
              type: integer
            stored:
              type: integer
            duplicates:
              type: integer
              description: Events stored before.
            attributed:
              type: integer
              description: Stored events attributed to a campaign.
        Rate:
          type: object
          required: [count, of]
          properties:
            count:
              type: integer
            of:
              type: integer
            rate:
              type: number
              description: Absent for an empty group.
            low:
              type: number
              description: The 95 % Wilson interval's lower end.
            high:
              type: number
        ReportLine:
          type: object
          required: [name, assigned, sent, conversions, converted, conversionValue]
          properties:
            name:
              type: string
            weight:
              type: integer
            assigned:
              type: integer
            sent:
              type: integer
              description: Notifications APNs accepted.
            opened:
              $ref: '#/components/schemas/Rate'
            conversions:
              type: integer
            converted:
              $ref: '#/components/schemas/Rate'
            conversionValue:
              type: number
        CampaignReport:
          type: object
          required: [id, state, holdoutPercent, attributionWindowHours, variants, comparisons, openedByLanguage]
          properties:
            id:
              type: string
              format: uuid
            state:
              $ref: '#/components/schemas/CampaignState'
            holdoutPercent:
              type: number
            attributionWindowHours:
              type: integer
            variants:
              type: array
              items:
                $ref: '#/components/schemas/ReportLine'
            holdout:
              $ref: '#/components/schemas/ReportLine'
            comparisons:
              type: array
              items:
                type: object
                required: [metric, a, b, difference, low, high, z, pValue, significant]
                properties:
                  metric:
                    type: string
                    enum: [openRate, conversionRate]
                  a:
                    type: string
                  b:
                    type: string
                  difference:
                    type: number
                    description: "`a`'s rate minus `b`'s."
                  low:
                    type: number
                  high:
                    type: number
                  z:
                    type: number
                  pValue:
                    type: number
                  significant:
                    type: boolean
                    description: pValue below 0.05.
            openedByLanguage:
              type: object
              additionalProperties:
                type: integer
    """#
}
