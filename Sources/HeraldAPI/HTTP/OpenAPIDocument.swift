/// The OpenAPI 3.1 description of Herald's HTTP API, served at `/openapi.yaml`.
///
/// The document is `Sources/HeraldAPI/openapi.yaml`; the `EmbedFiles` build plugin compiles
/// it into ``yaml`` so the binary needs no file beside it. `ops/test` lints it with
/// openapi-spec-validator, and the tests hold the router to it: every route is documented and
/// every documented operation is routed and reachable.
enum OpenAPIDocument {}
