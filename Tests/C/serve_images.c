/*
 * serve_images.c: the examples' loopback image server (image_server.h) as a
 * program, so that the small examples and the Python binding's example can be
 * run against it from a script. Prints its port on a line of its own, then
 * serves until its standard input is closed.
 *   coproc SERVER { build/serve_images; }; read -r port <&"${SERVER[0]}"
 *   ... http://127.0.0.1:$port/img/1.jpg ...
 *   exec {SERVER[1]}>&-; wait "$SERVER_PID"
 */
#include <stdio.h>

#include "image_server.h"

int main(void)
{
    image_server *server = image_server_start();
    if (server == NULL)
        return 1;
    printf("%d\n", image_server_port(server));
    fflush(stdout);
    /* The script holding our stdin decides when we stop: no signal races. */
    while (getchar() != EOF)
        ;
    image_server_stop(server);
    return 0;
}
