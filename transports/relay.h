/*
 * relay: a console drained for as long as the board runs. A thread of its
 * own reads the board's console whenever it has bytes, whoever is (or is
 * not) reading the other end, and holds them (up to RELAY_MAX_HELD) until
 * the local end takes them; what the local end writes goes to the board.
 * So a guest never stalls on a full console while the lab is busy with
 * something else (a suite's build on the host, a job between suites), and
 * nothing it printed meanwhile is lost. The thread shares no state: it
 * owns the board's fd and its end of the local pair, and is stopped by a
 * byte on its own pipe.
 */
#ifndef LABMESH_TRANSPORTS_RELAY_H
#define LABMESH_TRANSPORTS_RELAY_H

#define RELAY_MAX_HELD (16 * 1024 * 1024) /* console bytes held, per direction */

typedef struct relay relay_t;

/*
 * Relay board_fd (taken: closed by the relay) to a new local fd, set in
 * *ret_fd (the caller's: read and write it as the board's console; it
 * reads end of file once the board's side closed and every held byte was
 * read). Returns the relay or NULL (board_fd is then closed).
 */
relay_t *relay_new(int board_fd, int *ret_fd);
/* Stop the thread and close its fds; accepts NULL, sets *p = NULL. */
void relay_destroy(relay_t **p);

#endif
