# Sourced by ops/bench-sender, ops/bench-campaign and ops/bench-live-activity: the APNs-like sink both measure against
# and the ceiling run against it. Needs $work (a scratch directory) and the pids array.
#   start_sink            starts haproxy (one thread, TLS HTTP/2, answers every POST with 200 and
#                         the request's apns-id) on $ha_port, its certificate in $work/cert.pem
#   h2load_rate N C M     sends N requests over C connections with M streams each, with the
#                         headers and payload of a real notification and a JWT-sized
#                         authorization header; prints requests/s

. "$(dirname "${BASH_SOURCE[0]}")/../lib/free-port.sh"

install_sink_tools() {
  local missing="" tool
  for tool in haproxy:haproxy h2load:nghttp2-client openssl:openssl; do
    command -v "${tool%%:*}" >/dev/null || missing="$missing ${tool#*:}"
  done
  [ -z "$missing" ] && return
  [ "$(id -u)" -eq 0 ] || { echo "install$missing" >&2; exit 1; }
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
}

start_sink() {
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=localhost \
    -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
  cat "$work/cert.pem" "$work/key.pem" >"$work/haproxy.pem"
  ha_port=$(free_port)
  cat >"$work/haproxy.cfg" <<CFG
global
  nbthread 1
  tune.h2.max-concurrent-streams 1000
defaults
  mode http
  timeout client 60s
  timeout connect 5s
  timeout server 60s
frontend apns
  bind 127.0.0.1:$ha_port ssl crt $work/haproxy.pem alpn h2
  http-request return status 200 hdr apns-id "%[req.hdr(apns-id)]"
CFG
  haproxy -f "$work/haproxy.cfg" -db >"$work/haproxy.log" 2>&1 & pids+=($!)
  sleep 1
  printf '%s' '{"aps":{"alert":{"title":"Herald","body":"A benchmark notification"},"sound":"default"}}' \
    >"$work/payload.json"
}

h2load_rate() {
  h2load -n "$1" -c "$2" -m "$3" -t 1 -d "$work/payload.json" \
    -H "apns-topic: com.example.bench" -H "apns-push-type: alert" -H "apns-priority: 10" \
    -H "apns-id: 00000000-0000-0000-0000-000000000001" \
    -H "authorization: bearer $(head -c 150 /dev/urandom | base64 -w0 | tr "+/" "-_")" \
    "https://127.0.0.1:$ha_port/3/device/$(printf '%064x' 42)" \
    | awk '/^finished in/ {gsub(",", "", $4); print $4}'
}
