/// The OpenAPI 3.1 description of Herald's HTTP API, served at `/openapi.yaml`. Tests hold the
/// router to it: every route is documented here and every documented path is routed. The
/// document is kept in parts, one file each: header; paths; components (security, parameters,
/// responses); schemas; and the template and campaign paths and schemas, which continue `paths`
/// and `components.schemas`.
enum OpenAPIDocument {
    static let yaml =
        [
            header, paths, templatePaths, campaignPaths, experimentPaths, components, schemas, templateSchemas,
            campaignSchemas, audienceSchemas, notificationSchemas, experimentSchemas,
        ]
        .joined(separator: "\n") + "\n"

    /// Version, servers and security.
    static let header = #"""
    openapi: 3.1.0
    info:
      title: Herald
      version: 0.1.0
      description: >-
        Herald is a self-hosted APNs provider. App backends register device tokens (with the
        user's preferred languages and notification authorization settings); marketing writes
        localized templates as immutable versions and previews them; admins prune dead tokens.
        Every error is an RFC 9457 problem document (`application/problem+json`) whose
        `type` is `urn:herald:problem:<slug>` and which names the offending `field` when there is
        one. Routes under `/v1` need an API key sent as `Authorization: Bearer <key>`. An `app`
        key reaches only its own app's devices; a `marketing` key may read any app's devices but
        not change them or prune, and may use templates and campaigns and send; an `admin` key may do everything. A missing, malformed, unknown
        or revoked key gets 401; a key whose role or app does not allow the call gets 403. A key
        past its request rate (`HERALD_API_RATE_LIMIT` per instance) gets 429
        (`too-many-requests`) with `Retry-After`; a request the database cannot serve in time
        (`HERALD_DATABASE_STATEMENT_TIMEOUT_MS`) or at all gets 503 (`database-unavailable`)
        with `Retry-After`. No string in a JSON body may hold NUL, another C0 control character
        or DEL (tab and line breaks are allowed): such a body gets 422 naming the exact field,
        e.g. `attributes.nickname`. Lengths count Unicode code points.
    servers:
      - url: http://127.0.0.1:8080
    security:
      - apiKey: []
    tags:
      - name: probes
        description: Unauthenticated health, readiness, metrics and this document.
      - name: devices
        description: The token registry of one app.
      - name: templates
        description: Localized templates, their versions and previews (marketing and admin keys).
      - name: campaigns
        description: Campaigns, their lifecycle, counters and ledger (marketing and admin keys).
      - name: notifications
        description: Transactional sends, answered synchronously.
      - name: events
        description: Opens and conversions the app reports, and the campaign reports built on them.
      - name: admin
        description: Admin-only maintenance.
    """#
}
