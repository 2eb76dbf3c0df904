# What the demo's app reports after its A/B campaign: reads the campaign's ledger pages (the JSON
# of GET /v1/campaigns/{id}/deliveries, one page a line) and prints bodies for
# POST /v1/apps/{bundleID}/events, one a line, 1,000 events at most each.
# Opens (by apns-id): 8% of variant A's accepted notifications, 13% of B's. Purchases (by user
# ID): 2.5% of A's devices, 3.5% of B's, 2% of the held out. Decided from the apns-id's last
# hex digits and the user's number, so every run reports the same events. Variables: now.
function field(object, name) {
  if (match(object, "\"" name "\":\"[^\"]*\"")) return substr(object, RSTART + length(name) + 4, RLENGTH - length(name) - 5)
  return ""
}
function hex(text,   i, value) {
  value = 0
  for (i = 1; i <= length(text); i++) value = value * 16 + index("0123456789abcdef", substr(tolower(text), i, 1)) - 1
  return value
}
function emit(event) {
  if (count == 1000) { print "]}"; count = 0 }
  printf "%s%s", (count == 0 ? "{\"events\":[" : ","), event
  count++
}
{
  n = split($0, objects, /\},\{/)
  for (i = 1; i <= n; i++) {
    outcome = field(objects[i], "outcome"); variant = field(objects[i], "variant")
    apns = field(objects[i], "apnsID"); user = field(objects[i], "userID")
    if (outcome == "accepted" && apns != "" && hex(substr(apns, 33, 4)) / 65536 < (variant == "A" ? 0.08 : 0.13))
      emit("{\"type\":\"opened\",\"apnsID\":\"" apns "\",\"occurredAt\":\"" now "\"}")
    if (user == "" || (outcome != "accepted" && outcome != "heldOut")) continue
    share = (outcome == "heldOut") ? 0.02 : (variant == "A" ? 0.025 : 0.035)
    number = substr(user, 6) + 0
    if ((number * 7919 % 10007) / 10007 < share)
      emit("{\"type\":\"converted\",\"name\":\"purchase\",\"value\":24.9,\"userID\":\"" user "\",\"occurredAt\":\"" now "\"}")
  }
}
END { if (count > 0) print "]}" }
