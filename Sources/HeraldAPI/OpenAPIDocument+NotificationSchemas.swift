extension OpenAPIDocument {
    /// Transactional sends and their reports, continuing `components.schemas`.
    static let notificationSchemas = #"""
        TokenList:
          type: array
          minItems: 1
          maxItems: 100
          description: Device tokens as hex; a token repeated is sent once.
          items:
            type: string
            pattern: '^([0-9A-Fa-f]{2}){4,100}$'
        NotificationRequest:
          description: >-
            Exactly one of `tokens` and `userID`, and exactly one of `template` and `payload`.
            Unknown fields are refused.
          type: object
          additionalProperties: false
          properties:
            tokens:
              $ref: '#/components/schemas/TokenList'
            userID:
              type: string
              description: Every valid device registered with this user ID (at most 100).
            template:
              type: object
              required: [name]
              additionalProperties: false
              properties:
                name:
                  type: string
                version:
                  type: integer
                  minimum: 1
                  description: The latest version when absent.
                localization:
                  type: string
                  enum: [server, client]
                  default: server
                variables:
                  type: object
            payload:
              type: object
              description: A whole APNs payload (`aps` and custom keys), checked as APNs would.
            pushOptions:
              $ref: '#/components/schemas/PushOptions'
            environment:
              type: string
              enum: [sandbox, production]
              description: The environment of tokens that are not registered; the app's default when absent.
            respectQuietHours:
              type: boolean
              default: false
              description: A registered device inside the app's quiet hours (in its zone) is skipped, reason `quietHours`.
            respectFrequencyCaps:
              type: boolean
              default: false
              description: >-
                The app's frequency caps apply to registered devices (one over a cap is skipped,
                reason `frequencyCap`) and the send counts towards them.
        DirectSendReport:
          type: object
          required: [results, summary]
          properties:
            requestID:
              type: string
              format: uuid
              description: The request's ID in the notifications ledger (transactional sends only).
            summary:
              type: object
              description: Recipients by outcome.
              additionalProperties:
                type: integer
            results:
              type: array
              items:
                type: object
                required: [tokenSuffix, outcome, invalidated]
                properties:
                  tokenSuffix:
                    type: string
                  deviceID:
                    type: integer
                    description: Absent for a token that is not registered.
                  outcome:
                    type: string
                    enum: [accepted, failed, skipped, deferred]
                  status:
                    type: integer
                  reason:
                    type: string
                    description: >-
                      APNs's reason, or Herald's: `invalidated` (the device is invalid),
                      `notAuthorized`, `missingArgument(…)`, `RenderFailed`.
                  apnsID:
                    type: string
                    format: uuid
                  language:
                    type: string
                  invalidated:
                    type: boolean
                    description: This answer invalidated the device (410 after its registration, BadDeviceToken, DeviceTokenNotForTopic).
    """#
}
