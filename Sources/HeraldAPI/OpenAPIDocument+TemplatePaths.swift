extension OpenAPIDocument {
    /// The template operations, continuing `paths`.
    static let templatePaths = #"""
      /v1/templates:
        get:
          operationId: listTemplates
          summary: List templates
          description: >-
            Every template with its latest version number, how many versions it has and the latest
            version's languages, by name. Marketing and admin keys only; `app` keys get 403.
          tags: [templates]
          responses:
            '200':
              description: The templates.
              content:
                application/json:
                  schema:
                    $ref: '#/components/schemas/TemplateList'
            '401':
              $ref: '#/components/responses/Unauthorized'
            '403':
              $ref: '#/components/responses/Forbidden'
            '500':
              $ref: '#/components/responses/InternalError'
      /v1/templates/{name}:
        parameters:
          - name: name
            in: path
            required: true
            description: The template's name, 1 to 64 characters of `a-z`, `0-9`, `_` and `-`.
            schema:
              type: string
              pattern: '^[a-z0-9][a-z0-9_-]{0,63}$'
        get:
          operationId: getTemplate
          summary: Read a template and its versions
          description: >-
            The latest version with its document, and every version (without documents) newest
            first. Marketing and admin keys only.
          tags: [templates]
          responses:
            '200':
              description: The template.
              content:
                application/json:
                  schema:
                    $ref: '#/components/schemas/Template'
            '401':
              $ref: '#/components/responses/Unauthorized'
            '403':
              $ref: '#/components/responses/Forbidden'
            '404':
              description: No template has this name (`unknown-template`, field `name`).
              content:
                application/problem+json:
                  schema:
                    $ref: '#/components/schemas/Problem'
            '500':
              $ref: '#/components/responses/InternalError'
        put:
          operationId: putTemplate
          summary: Store a new version of a template
          description: >-
            The body is a whole template document. It becomes the template's next version when its
            canonical JSON differs from the latest version's (201); when it is the same, nothing is
            stored and the latest version is answered (200). Versions are never changed; a campaign
            pins one. The path names the template: the body's `name` may be left out and must be
            the path's when given. The document is validated and compiled, and every problem is
            reported at once. Marketing and admin keys only. The body is at most 64 KiB.
          tags: [templates]
          requestBody:
            required: true
            content:
              application/json:
                schema:
                  $ref: '#/components/schemas/TemplateDocument'
                example:
                  defaultLanguage: en
                  title:
                    key: WELCOME_TITLE
                    arguments: ['vars.appName ?? "Herald Shop"']
                  body:
                    key: WELCOME_BODY
                    arguments: [attributes.firstName]
                  payload:
                    sound: default
                  strings:
                    en:
                      WELCOME_TITLE: Welcome to %@
                      WELCOME_BODY: Hi %@! Your account is ready.
                    de:
                      WELCOME_TITLE: Willkommen bei %@
                      WELCOME_BODY: Hallo %@! Dein Konto ist bereit.
          responses:
            '200':
              description: The document is the latest version's; nothing was stored.
              content:
                application/json:
                  schema:
                    $ref: '#/components/schemas/TemplateVersion'
            '201':
              description: The document is stored as the template's next version.
              content:
                application/json:
                  schema:
                    $ref: '#/components/schemas/TemplateVersion'
            '400':
              $ref: '#/components/responses/InvalidRequest'
            '401':
              $ref: '#/components/responses/Unauthorized'
            '403':
              $ref: '#/components/responses/Forbidden'
            '413':
              $ref: '#/components/responses/PayloadTooLarge'
            '422':
              description: >-
                The document is invalid (`invalid-field`): `errors` lists every problem with its
                field (e.g. `strings.de.WELCOME_BODY`, `body.arguments[1]`) and `field` is the first
                one's; or the body's `name` is not the path's (field `name`). Nothing is stored.
              content:
                application/problem+json:
                  schema:
                    $ref: '#/components/schemas/Problem'
            '500':
              $ref: '#/components/responses/InternalError'
      /v1/templates/{name}/versions/{version}:
        parameters:
          - name: name
            in: path
            required: true
            description: The template's name, 1 to 64 characters of `a-z`, `0-9`, `_` and `-`.
            schema:
              type: string
              pattern: '^[a-z0-9][a-z0-9_-]{0,63}$'
          - name: version
            in: path
            required: true
            description: A version number, 1 or more.
            schema:
              type: integer
              minimum: 1
        get:
          operationId: getTemplateVersion
          summary: Read one version of a template
          description: Marketing and admin keys only.
          tags: [templates]
          responses:
            '200':
              description: The version with its document.
              content:
                application/json:
                  schema:
                    $ref: '#/components/schemas/TemplateVersion'
            '401':
              $ref: '#/components/responses/Unauthorized'
            '403':
              $ref: '#/components/responses/Forbidden'
            '404':
              description: >-
                No template has this name (`unknown-template`, field `name`), or it has no such
                version (`unknown-template-version`, field `version`).
              content:
                application/problem+json:
                  schema:
                    $ref: '#/components/schemas/Problem'
            '422':
              description: The version is not a number of 1 or more (`invalid-field`, field `version`).
              content:
                application/problem+json:
                  schema:
                    $ref: '#/components/schemas/Problem'
            '500':
              $ref: '#/components/responses/InternalError'
      /v1/templates/{name}/preview:
        parameters:
          - name: name
            in: path
            required: true
            description: The template's name, 1 to 64 characters of `a-z`, `0-9`, `_` and `-`.
            schema:
              type: string
              pattern: '^[a-z0-9][a-z0-9_-]{0,63}$'
        post:
          operationId: previewTemplate
          summary: Preview what devices would get
          description: >-
            Renders a version (the latest unless `version` is given) for each described recipient,
            in both localization modes: `server` (finished text in the negotiated language) and
            `client` (`loc-key`/`loc-args`). For each recipient it answers the language chosen and,
            per mode, the exact payload with its size in bytes, or why the recipient is skipped
            (e.g. alerts not allowed, an argument without a value) or why rendering failed.
            Stores nothing. Marketing and admin keys only. The body is at most 64 KiB.
          tags: [templates]
          requestBody:
            required: true
            content:
              application/json:
                schema:
                  $ref: '#/components/schemas/PreviewRequest'
                example:
                  variables:
                    appName: Herald Shop
                  attributes:
                    firstName: Ana
                  recipients:
                    - languages: [zh-Hant-HK, en]
                      authorization:
                        status: authorized
                    - languages: [es-MX]
                      authorization:
                        status: denied
          responses:
            '200':
              description: One preview per recipient, in the order given.
              content:
                application/json:
                  schema:
                    $ref: '#/components/schemas/Preview'
            '400':
              $ref: '#/components/responses/InvalidRequest'
            '401':
              $ref: '#/components/responses/Unauthorized'
            '403':
              $ref: '#/components/responses/Forbidden'
            '404':
              description: No template has this name (`unknown-template`, field `name`).
              content:
                application/problem+json:
                  schema:
                    $ref: '#/components/schemas/Problem'
            '413':
              $ref: '#/components/responses/PayloadTooLarge'
            '422':
              description: >-
                A field is missing, unknown or invalid (`invalid-field`); `field` names it, e.g.
                `recipients[1].languages[0]`, `recipients[0].authorization.status`,
                `payload.pushType`, or `version` when the template has no such version.
              content:
                application/problem+json:
                  schema:
                    $ref: '#/components/schemas/Problem'
            '500':
              $ref: '#/components/responses/InternalError'
    """#
}
