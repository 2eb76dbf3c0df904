# Synthetic devices for ops/demo, one import line (NDJSON) each: realistic language orders,
# authorization settings, time zones and attributes. Every 50th token (offset 7) answers 410
# Unregistered in the simulator: its "HEX MS" line goes to the file `gone`, alternately with the
# timestamp `dead` (later than the registration: invalidated) and `kept` (earlier: kept); these
# devices allow alerts, so n devices give exactly n/50 410s, half of them invalidated.
# Variables: n, dead, kept, gone.
BEGIN {
  srand(20261122)
  split("[\"en-US\"]|[\"en-GB\"]|[\"de-DE\",\"en\"]|[\"fr-FR\"]|[\"fr-CA\",\"en-CA\"]|[\"es-MX\",\"es\",\"en\"]|" \
        "[\"es-ES\"]|[\"pt-BR\"]|[\"pt-PT\",\"en\"]|[\"ja-JP\"]|[\"zh-Hans-CN\"]|[\"zh-Hant-HK\",\"en-GB\"]|" \
        "[\"zh-Hant-TW\"]|[\"ar-SA\",\"en\"]|[\"it-IT\",\"en\"]|[\"ko-KR\"]|[\"nl-NL\",\"de\",\"en\"]|" \
        "[\"ru-RU\"]|[\"pl-PL\",\"en\"]", langs, "|")
  # Weights of the language lists above, out of 100.
  split("20 7 9 7 3 6 4 7 2 6 5 3 2 3 4 3 5 2 2", weights, " ")
  split("America/New_York Europe/London Europe/Berlin Europe/Paris America/Toronto America/Mexico_City " \
        "Europe/Madrid America/Sao_Paulo Europe/Lisbon Asia/Tokyo Asia/Shanghai Asia/Hong_Kong " \
        "Asia/Taipei Asia/Riyadh Europe/Rome Asia/Seoul Europe/Amsterdam Europe/Moscow Europe/Warsaw", zones, " ")
  split("Ana Ben Chen Dana Emre Farah Guo Hana Ivan Jun Kai Lea Mei Nia Omar Pia Quinn Rui Sara Tomas", names, " ")
  split("free free free pro team", plans, " ")
  # Cart sizes that show plural forms: Russian and Polish 1, 2-4, 5-20, 21, 22, 25.
  split("1 1 2 2 3 4 5 7 11 21 22 25", counts, " ")
  for (i = 1; i <= n; i++) {
    token = sprintf("%08x", i)
    for (j = 0; j < 14; j++) token = token sprintf("%04x", int(rand() * 65536))
    pick = rand() * 100; l = 1
    for (acc = weights[1]; pick > acc && l < 19; acc += weights[l]) l++
    a = rand()
    if (a < 0.80) auth = "{\"status\":\"authorized\"}"
    else if (a < 0.88) auth = "{\"status\":\"authorized\",\"sound\":false}"
    else if (a < 0.93) auth = "{\"status\":\"provisional\"}"
    else if (a < 0.97) auth = "{\"status\":\"denied\"}"
    else auth = "{\"status\":\"authorized\",\"alert\":false}"
    # The tokens that answer 410 allow alerts, so each is sent and the 410 counts are exact.
    if (i % 50 == 7) auth = "{\"status\":\"authorized\"}"
    printf "{\"token\":\"%s\",\"languages\":%s,\"authorization\":%s,\"timeZone\":\"%s\",\"userID\":\"user-%d\"," \
           "\"attributes\":{\"firstName\":\"%s\",\"plan\":\"%s\",\"cartItemCount\":%d}}\n",
           token, langs[l], auth, zones[l], i, names[1 + int(rand() * 20)], plans[1 + int(rand() * 5)], counts[1 + int(rand() * 12)]
    if (i % 50 == 7) print token " " ((i % 100 == 7) ? dead : kept) > gone
  }
}
