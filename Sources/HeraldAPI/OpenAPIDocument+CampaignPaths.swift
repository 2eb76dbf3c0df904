extension OpenAPIDocument {
    /// The campaign and transactional-send operations, continuing `paths`.
    static let campaignPaths = #"""
      /v1/campaigns:
        post:
          operationId: createCampaign
          summary: Create a campaign draft
          description: >-
            Stores a draft. Nothing is sent until it is scheduled. The template is named, not
            pinned: scheduling pins its latest version. Every rule the draft breaks is reported at
            once (`errors`). Marketing and admin keys only.
          tags: [campaigns]
          requestBody:
            required: true
            content:
              application/json:
                schema:
                  $ref: '#/components/schemas/CampaignDraft'
          responses:
            '201':
              description: The draft.
              content:
                application/json:
                  schema:
                    $ref: '#/components/schemas/Campaign'
            '400':
              $ref: '#/components/responses/InvalidRequest'
            '401':
              $ref: '#/components/responses/Unauthorized'
            '403':
              $ref: '#/components/responses/Forbidden'
            '404':
              description: No app has the body's bundle ID (`unknown-app`, field `app`).
              content:
                application/problem+json:
                  schema:
                    $ref: '#/components/schemas/Problem'
            '422':
              $ref: '#/components/responses/InvalidField'
            '500':
              $ref: '#/components/responses/InternalError'
        get:
          operationId: listCampaigns
          summary: List campaigns, newest first
          tags: [campaigns]
          parameters:
            - name: app
              in: query
              description: Only this app's campaigns (bundle ID).
              schema:
                type: string
            - name: state
              in: query
              schema:
                $ref: '#/components/schemas/CampaignState'
            - name: cursor
              in: query
              description: The `nextCursor` of the previous page.
              schema:
                type: string
            - name: limit
              in: query
              schema:
                type: integer
                minimum: 1
                maximum: 200
                default: 50
          responses:
            '200':
              description: One page of campaigns with live counters.
              content:
                application/json:
                  schema:
                    $ref: '#/components/schemas/CampaignPage'
            '401':
              $ref: '#/components/responses/Unauthorized'
            '403':
              $ref: '#/components/responses/Forbidden'
            '404':
              $ref: '#/components/responses/UnknownApp'
            '422':
              $ref: '#/components/responses/InvalidField'
            '500':
              $ref: '#/components/responses/InternalError'
      /v1/campaigns/estimate:
        post:
          operationId: estimateAudience
          summary: Count the devices an audience matches now
          tags: [campaigns]
          requestBody:
            required: true
            content:
              application/json:
                schema:
                  type: object
                  required: [app]
                  additionalProperties: false
                  properties:
                    app:
                      type: string
                      description: The app's bundle ID.
                    audience:
                      $ref: '#/components/schemas/AudienceFilter'
          responses:
            '200':
              description: How many valid devices of the app match.
              content:
                application/json:
                  schema:
                    type: object
                    required: [app, devices, overFrequencyCap]
                    properties:
                      app:
                        type: string
                      devices:
                        type: integer
                      overFrequencyCap:
                        type: integer
                        description: Of those, devices at one of the app's frequency caps now (a campaign would skip them).
            '400':
              $ref: '#/components/responses/InvalidRequest'
            '401':
              $ref: '#/components/responses/Unauthorized'
            '403':
              $ref: '#/components/responses/Forbidden'
            '404':
              $ref: '#/components/responses/UnknownApp'
            '422':
              $ref: '#/components/responses/InvalidField'
            '500':
              $ref: '#/components/responses/InternalError'
      /v1/campaigns/{id}:
        parameters:
          - $ref: '#/components/parameters/campaignID'
        get:
          operationId: getCampaign
          summary: Read a campaign with its live counters
          tags: [campaigns]
          responses:
            '200':
              description: The campaign.
              content:
                application/json:
                  schema:
                    $ref: '#/components/schemas/Campaign'
            '401':
              $ref: '#/components/responses/Unauthorized'
            '403':
              $ref: '#/components/responses/Forbidden'
            '404':
              $ref: '#/components/responses/UnknownCampaign'
            '500':
              $ref: '#/components/responses/InternalError'
        patch:
          operationId: editCampaign
          summary: Edit a draft
          description: >-
            Fields left out stay as they are; `null` clears `notes`, `sendAt` and `rateLimit`. Only
            a draft can be edited (409 otherwise).
          tags: [campaigns]
          requestBody:
            required: true
            content:
              application/json:
                schema:
                  $ref: '#/components/schemas/CampaignPatch'
          responses:
            '200':
              description: The edited draft.
              content:
                application/json:
                  schema:
                    $ref: '#/components/schemas/Campaign'
            '400':
              $ref: '#/components/responses/InvalidRequest'
            '401':
              $ref: '#/components/responses/Unauthorized'
            '403':
              $ref: '#/components/responses/Forbidden'
            '404':
              $ref: '#/components/responses/UnknownCampaign'
            '409':
              $ref: '#/components/responses/InvalidTransition'
            '422':
              $ref: '#/components/responses/InvalidField'
            '500':
              $ref: '#/components/responses/InternalError'
    \#(transitionPaths)
      /v1/campaigns/{id}/test:
        parameters:
          - $ref: '#/components/parameters/campaignID'
        post:
          operationId: testCampaign
          summary: Send the campaign's notification now to listed tokens
          description: >-
            Renders the campaign's template (the pinned version; the latest for a draft) with its
            variables and push options for each token (a registered token as its device; an
            unknown one in the template's default language, in `environment` or the app's
            default) and sends at once. Recorded apart: test sends never count in the campaign's
            counters or ledger. Works in any state. `variant` picks one message of an A/B test
            (the first when absent).
          tags: [campaigns]
          requestBody:
            required: true
            content:
              application/json:
                schema:
                  type: object
                  required: [tokens]
                  additionalProperties: false
                  properties:
                    tokens:
                      $ref: '#/components/schemas/TokenList'
                    environment:
                      type: string
                      enum: [sandbox, production]
                    variant:
                      type: string
                      description: The name of one of the campaign's variants.
          responses:
            '200':
              description: Each token's outcome, in request order.
              content:
                application/json:
                  schema:
                    $ref: '#/components/schemas/DirectSendReport'
            '400':
              $ref: '#/components/responses/InvalidRequest'
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
      /v1/campaigns/{id}/deliveries:
        parameters:
          - $ref: '#/components/parameters/campaignID'
        get:
          operationId: listCampaignDeliveries
          summary: Read a campaign's ledger, by device ID
          tags: [campaigns]
          parameters:
            - name: outcome
              in: query
              schema:
                type: string
                enum: [accepted, failed, skipped, deferred, unsent, heldOut]
            - name: reason
              in: query
              description: APNs's reason (e.g. `Unregistered`) or Herald's (e.g. `notAuthorized`).
              schema:
                type: string
            - name: cursor
              in: query
              description: The `nextCursor` of the previous page.
              schema:
                type: string
            - name: limit
              in: query
              schema:
                type: integer
                minimum: 1
                maximum: 1000
                default: 100
          responses:
            '200':
              description: One page of the ledger.
              content:
                application/json:
                  schema:
                    $ref: '#/components/schemas/DeliveryPage'
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
      /v1/apps/{bundleID}/notifications:
        parameters:
          - $ref: '#/components/parameters/bundleID'
        post:
          operationId: sendNotification
          summary: Send a transactional notification now
          description: >-
            To listed tokens (registered or not) or to every valid device of a user ID, from a
            template (rendered per device in its best language, shaped by its authorization) or a
            raw payload (shaped by authorization for registered devices: no alert push where
            alerts are off, no sound or badge where they are off). Answers each recipient's
            outcome synchronously, records it in the app's notifications ledger under
            `requestID`, and applies the invalidation rule to 410, BadDeviceToken and
            DeviceTokenNotForTopic answers. An `app` key sends for its own app only.
          tags: [notifications]
          requestBody:
            required: true
            content:
              application/json:
                schema:
                  $ref: '#/components/schemas/NotificationRequest'
                example:
                  userID: user-42
                  template:
                    name: welcome
                    variables:
                      appName: Acme
          responses:
            '200':
              description: Each recipient's outcome, in request order.
              content:
                application/json:
                  schema:
                    $ref: '#/components/schemas/DirectSendReport'
            '400':
              $ref: '#/components/responses/InvalidRequest'
            '401':
              $ref: '#/components/responses/Unauthorized'
            '403':
              $ref: '#/components/responses/Forbidden'
            '404':
              $ref: '#/components/responses/UnknownApp'
            '422':
              $ref: '#/components/responses/InvalidField'
            '500':
              $ref: '#/components/responses/InternalError'
    """#

    /// `POST /v1/campaigns/{id}/schedule|pause|resume|cancel`.
    static let transitionPaths = [
        ("schedule", "Schedule a draft", "Pins the template's latest version; the engine starts it at `sendAt` (or now)."),
        ("pause", "Pause a running campaign", "Stops claiming work; batches in flight finish and are recorded."),
        ("resume", "Resume a paused campaign", "Workers claim its remaining chunks again."),
        ("cancel", "Cancel a campaign", "Stops it for good; devices not reached count as unsent."),
    ].map { event, summary, description in
        """
          /v1/campaigns/{id}/\(event):
            parameters:
              - $ref: '#/components/parameters/campaignID'
            post:
              operationId: \(event)Campaign
              summary: \(summary)
              description: \(description) Any transition the lifecycle does not allow answers 409.
              tags: [campaigns]
              responses:
                '200':
                  description: The campaign after the transition.
                  content:
                    application/json:
                      schema:
                        $ref: '#/components/schemas/Campaign'
                '401':
                  $ref: '#/components/responses/Unauthorized'
                '403':
                  $ref: '#/components/responses/Forbidden'
                '404':
                  $ref: '#/components/responses/UnknownCampaign'
                '409':
                  $ref: '#/components/responses/InvalidTransition'
                '422':
                  $ref: '#/components/responses/InvalidField'
                '500':
                  $ref: '#/components/responses/InternalError'
        """
    }.joined(separator: "\n")
}
