# Sourced by the scripts that run examples: the loopback image server
# (Tests/C/serve_images.c) as a coprocess, and a temporary directory, both
# removed on exit. start_image_server PROGRAM sets image_base to
# http://127.0.0.1:PORT and image_urls to ten images of every format.
tmp=$(mktemp -d)
server_pid=""
cleanup() {
    # Closing the server's stdin stops it.
    if [ -n "$server_pid" ]; then eval "exec $server_in>&-"; wait "$server_pid" || true; fi
    rm -rf "$tmp"
}
trap cleanup EXIT

start_image_server() {
    coproc SERVER { "$1"; }
    server_pid=$SERVER_PID server_in=${SERVER[1]}
    local port
    read -r port <&"${SERVER[0]}" || { echo "$0: the image server did not start"; exit 1; }
    image_base=http://127.0.0.1:$port
    image_urls=()
    for n in 1 2 3 4 5 6; do image_urls+=("$image_base/img/$n.jpg"); done
    image_urls+=("$image_base/img/7.png" "$image_base/img/8.webp" "$image_base/img/9.gif" "$image_base/anim/10.gif")
}
