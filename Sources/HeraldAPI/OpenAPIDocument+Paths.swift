extension OpenAPIDocument {
    /// Every operation, by path.
    static let paths = #"""
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
            from another provider. The body is streamed; each line is at most 16 KiB, and blank
            lines are skipped. Lines are written in batches as they arrive, so good lines are
            stored even when others are refused (a line the database refuses costs only that
            line); refused lines are reported by number, and the answer is 200 however many were
            refused. Each line is applied like a `PUT` of that token. A body past
            `HERALD_IMPORT_MAX_BYTES` (1 GiB) stops with 413, one running past
            `HERALD_IMPORT_MAX_SECONDS` (1 hour) with 408; both say how many lines were read and
            stored. Allowed for the app's own `app` key and `admin` keys; `marketing` keys get 403.
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
            '408':
              description: The import ran past its time bound; what was read is stored (`request-timeout`).
              content:
                application/problem+json:
                  schema:
                    $ref: '#/components/schemas/Problem'
            '413':
              $ref: '#/components/responses/PayloadTooLarge'
            '500':
              $ref: '#/components/responses/InternalError'
      /v1/admin/prune:
        post:
          operationId: pruneDevices
          summary: Delete dead device tokens
          description: >-
            Deletes devices invalidated before `invalidatedBefore` OR last registered before
            `notRegisteredSince` (at least one of the two is required), optionally for one app
            only, in batches. `invalidatedBefore` may not be in the future and
            `notRegisteredSince` must be at least 7 days ago (422 otherwise). A dry run deletes
            nothing and counts what would go. Each batch is written to the audit log in the
            transaction that deletes it, and every prune ends with a summary entry. Admin keys
            only; other keys get 403. The body is at most 64 KiB.
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
    """#
}
