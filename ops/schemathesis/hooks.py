"""Schemathesis hooks for Herald's API (loaded by ops/fuzz-api through SCHEMATHESIS_HOOKS).

The device import takes NDJSON, which schemathesis cannot serialize by itself. Each generated
string becomes three lines: the string itself (a line that is not JSON, or odd JSON), a
registration whose attribute holds the string (control characters, long text, odd Unicode), and
a registration whose token is the string. Herald must answer every such body with 200 (bad
lines refused by number) or a 4xx, never a 5xx.
"""
import hashlib
import json

import schemathesis


@schemathesis.serializer("application/x-ndjson")
def ndjson(ctx, value):
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    text = value if isinstance(value, str) else json.dumps(value)
    token = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    lines = [
        text,
        json.dumps({"token": token, "languages": ["en"], "attributes": {"fuzz": text}}),
        json.dumps({"token": text}),
    ]
    return "\n".join(lines).encode("utf-8", "surrogatepass")


# Herald may talk to loopback only while it is fuzzed: a generated app change must not point
# the demo app at Apple (`"apnsEndpoint": null`) or at a made-up host, or the sends that follow
# (a Live Activity update, a transactional send) would look it up and connect there. The other
# fields of the change, and every other body, go as generated.
@schemathesis.hook
def before_call(ctx, case, kwargs):
    if case.operation.method.upper() == "PATCH" and case.operation.path == "/v1/apps/{bundleID}" and isinstance(case.body, dict):
        for field in ("apnsEndpoint", "apnsCA", "apnsManagementEndpoint"):
            case.body.pop(field, None)
        if not case.body:
            case.body["defaultTimeZone"] = None
