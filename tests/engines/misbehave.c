/*
 * misbehave.c - a text-protocol engine (docs/ENGINES.md) for tic-tac-toe and
 * the other m,n,k boards that plays the first free square (a1, b1, ..., then
 * the next row up) and misbehaves as told, to test the arena's engine
 * adapters. `misbehave MODE [N]`, N counting its own `go` commands from 1
 * across games:
 *   ok              behaves; one stderr line per move
 *   exit-now        exits 3 before reading anything
 *   die-handshake   answers `arena 1` with `id name misbehave`, exits 4
 *   die-at N        exits 5 at its N-th go
 *   crash-at N      is killed by SIGKILL at its N-th go
 *   hang-at N       from its N-th go on never answers anything (nor stop, nor quit);
 *                   says `hanging at go N` on stderr when it starts to
 *   stop-at N       answers its N-th go only when it reads `stop`
 *   slow MS         sleeps MS milliseconds before every answer to go
 *   garbage-at N    answers its N-th go with a line that is not a move, then waits
 *   badmove-at N    answers its N-th go with `bestmove zz99`
 *   illegal-at N    answers its N-th go with the last move played (occupied)
 *   flood-at N      at its N-th go prints `info string xxx...` lines forever
 *   longline-at N   at its N-th go prints a 200,000-character info line first
 *   children        forks two children that ignore SIGTERM and sleep forever;
 *                   its first go answer says `info string children PID1 PID2`
 *   ignore-term     ignores SIGTERM and `quit`: only SIGKILL ends it
 *   stderr-flood    writes 10,000 lines to stderr at startup
 *
 * Build: cc -std=c99 -O2 -Wall -Wextra -Werror -o misbehave misbehave.c
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAXW 26
#define MAXH 30

static const char *MODES[] = {"ok", "exit-now", "die-handshake", "die-at", "crash-at", "hang-at",
                              "stop-at", "slow", "garbage-at", "badmove-at", "illegal-at", "flood-at",
                              "longline-at", "children", "ignore-term", "stderr-flood", NULL};
static int W = 3, H = 3;
static int board[MAXH][MAXW];       /* row 0 = rank 1 */
static char last[16];               /* the last move of the position, "" if none */
static pid_t kids[2];

static int is(const char *mode, const char *name) { return !strcmp(mode, name); }

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {}
}

static void sleep_forever(void) {
    for (;;) sleep_ms(1000);
}

static void out(const char *s) {    /* one line to stdout; a closed pipe ends us quietly */
    if (fputs(s, stdout) == EOF || fputc('\n', stdout) == EOF || fflush(stdout) == EOF) _exit(0);
}

static void answer(void) {          /* bestmove: the first free square */
    char buf[32];
    for (int r = 0; r < H; r++)
        for (int c = 0; c < W; c++)
            if (!board[r][c]) {
                snprintf(buf, sizeof buf, "bestmove %c%d", 'a' + c, r + 1);
                out(buf);
                return;
            }
}

static void usage(void) {
    fprintf(stderr, "usage: misbehave ok|exit-now|die-handshake|children|ignore-term|stderr-flood"
                    "|slow MS|die-at|crash-at|hang-at|stop-at|garbage-at|badmove-at|illegal-at"
                    "|flood-at|longline-at N\n");
    exit(2);
}

int main(int argc, char **argv) {
    static char line[1 << 18];      /* commands, and the 200,000-character line of longline-at */
    const char *mode = argc > 1 ? argv[1] : "";
    int known = 0, gos = 0, waiting_stop = 0, hung = 0;
    for (const char **m = MODES; *m; m++) known |= is(mode, *m);
    int needs_n = strstr(mode, "-at") != NULL || is(mode, "slow");
    if (!known || argc != 2 + needs_n) usage();
    long n = needs_n ? atol(argv[2]) : 0;

    signal(SIGPIPE, SIG_IGN);       /* write errors end us quietly instead (see out) */
    if (is(mode, "exit-now")) return 3;
    if (is(mode, "ignore-term")) signal(SIGTERM, SIG_IGN);
    if (is(mode, "stderr-flood"))
        for (int i = 1; i <= 10000; i++) fprintf(stderr, "stderr flood line %d of 10000\n", i);
    if (is(mode, "children"))
        for (int i = 0; i < 2; i++)
            if ((kids[i] = fork()) == 0) {  /* the child: same process group, holds stdout */
                signal(SIGTERM, SIG_IGN);
                sleep_forever();
            }

    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = '\0';
        char *cmd = strtok(line, " ");
        if (!cmd || hung) continue;
        if (is(cmd, "arena")) {
            out("id name misbehave");
            if (is(mode, "die-handshake")) return 4;
            out("id author arena tests");
            out("arenaok");
        } else if (is(cmd, "isready")) {
            out("readyok");
        } else if (is(cmd, "newgame")) {    /* newgame GAME width=W,height=H,k=K */
            char *opt;
            W = H = 3;
            strtok(NULL, " ");
            while ((opt = strtok(NULL, " ,")) != NULL) {
                if (!strncmp(opt, "width=", 6)) W = atoi(opt + 6);
                if (!strncmp(opt, "height=", 7)) H = atoi(opt + 7);
            }
            if (W < 1 || W > MAXW) W = 3;
            if (H < 1 || H > MAXH) H = 3;
        } else if (is(cmd, "position")) {   /* position startpos [moves M1 M2 ...] */
            char *tok;
            int who = 1;
            memset(board, 0, sizeof board);
            last[0] = '\0';
            while ((tok = strtok(NULL, " ")) != NULL) {
                int c = tok[0] - 'a', r = atoi(tok + 1) - 1;
                if (c < 0 || c >= W || r < 0 || r >= H || is(tok, "startpos")) continue;
                board[r][c] = who, who = 3 - who;
                snprintf(last, sizeof last, "%s", tok);
            }
        } else if (is(cmd, "go")) {
            int at = ++gos == n && strstr(mode, "-at") != NULL;
            if (is(mode, "ok")) fprintf(stderr, "thinking about move %d\n", gos);
            if (is(mode, "slow")) sleep_ms(n);
            if (is(mode, "children") && gos == 1) {
                snprintf(line, sizeof line, "info string children %ld %ld", (long)kids[0], (long)kids[1]);
                out(line);
            }
            if (!at) { answer(); continue; }
            if (is(mode, "die-at")) return 5;
            if (is(mode, "crash-at")) kill(getpid(), SIGKILL);
            if (is(mode, "hang-at")) hung = 1, fprintf(stderr, "hanging at go %d\n", gos);
            if (is(mode, "stop-at")) waiting_stop = 1;
            if (is(mode, "garbage-at")) out("hello there, this is not a move");
            if (is(mode, "badmove-at")) out("bestmove zz99");
            if (is(mode, "illegal-at")) {
                snprintf(line, sizeof line, "bestmove %s", last);
                if (last[0]) out(line);
                else answer();
            }
            if (is(mode, "flood-at"))
                for (;;) out("info string xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                             "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
            if (is(mode, "longline-at")) {
                memcpy(line, "info string ", 12);
                memset(line + 12, 'x', 200000 - 12);
                line[200000] = '\0';
                out(line);
                answer();
            }
        } else if (is(cmd, "stop")) {
            if (waiting_stop) waiting_stop = 0, answer();
        } else if (is(cmd, "quit")) {
            if (!is(mode, "ignore-term")) return 0;
        }
    }
    if (hung || is(mode, "ignore-term")) sleep_forever();   /* even at the end of input */
    return 0;
}
