extension OpenAPIDocument {
    /// Security scheme, parameters and shared responses; `schemas` follows.
    static let components = #"""
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
        campaignID:
          name: id
          in: path
          required: true
          description: The campaign's ID (a UUID, as `Campaign.id`). An unknown one gets 404 `unknown-campaign`.
          schema:
            type: string
            format: uuid
      responses:
        UnknownCampaign:
          description: No campaign has this ID (`unknown-campaign`, field `id`).
          content:
            application/problem+json:
              schema:
                $ref: '#/components/schemas/Problem'
        InvalidTransition:
          description: >-
            The campaign's state does not allow this (`invalid-transition`, field `state`), e.g.
            editing a campaign that is no longer a draft or pausing one that is not running.
          content:
            application/problem+json:
              schema:
                $ref: '#/components/schemas/Problem'
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
    """#
}
