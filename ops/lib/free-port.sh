# free_port: prints a loopback TCP port that nothing listens on, for the scripts in ops/ to source.
# Ports are drawn below the kernel's ephemeral range (net.ipv4.ip_local_port_range), which the
# outgoing connections of every other process on the machine draw from: a port in that range can
# be free of listeners and still be bound by a client's socket, and then a server's bind fails
# with "Address already in use".
free_port() {
  local low=32768 port
  if [ -r /proc/sys/net/ipv4/ip_local_port_range ]; then read -r low _ </proc/sys/net/ipv4/ip_local_port_range; fi
  [ "$low" -gt 11000 ] 2>/dev/null || low=32768
  for _ in $(seq 1 200); do
    port=$(( 10000 + RANDOM % (low - 10000) ))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; return 0; fi
  done
  echo "no free loopback port found" >&2
  return 1
}
