/*
 * gtp_mnk.c - a small GTP version 2 engine for square m,n,k boards: k in a
 * row wins (`-k K`, default 5: gomoku 15x15; `-k 3` for tic-tac-toe 3x3).
 * genmove wins if it can, else blocks the opponent's immediate win, else
 * plays the free point nearest the centre. Vertices follow Go: columns A..
 * skipping I, rows counted from the bottom (A1 = bottom left). For the
 * arena's fault tests, `--garbage-at N` makes its N-th genmove answer the
 * line `banana`, and `--illegal-at N` an occupied vertex.
 *
 * Build: cc -std=c99 -O2 -Wall -Wextra -Werror -o gtp_mnk gtp_mnk.c
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 25
static const char COLS[] = "ABCDEFGHJKLMNOPQRSTUVWXYZ";  /* no I */
static const char *COMMANDS[] = {"protocol_version", "name", "version", "known_command", "list_commands",
                                 "boardsize", "clear_board", "komi", "play", "genmove", "time_settings",
                                 "time_left", "showboard", "quit", NULL};

static int N = 15, K = 5;
static int board[MAXN][MAXN];        /* 0 empty, 1 black, 2 white; row 0 = row 1 (bottom) */
static int last_r = -1, last_c = -1;  /* the last stone played, for --illegal-at */

static int color(const char *s) {    /* black|b -> 1, white|w -> 2, else 0 */
    if (!s) return 0;
    if (!strcmp(s, "b") || !strcmp(s, "black")) return 1;
    if (!strcmp(s, "w") || !strcmp(s, "white")) return 2;
    return 0;
}

static int vertex(const char *s, int *r, int *c) {  /* "d4" -> row 3, column 3 */
    const char *p = s ? strchr(COLS, toupper((unsigned char)s[0])) : NULL;
    if (!p || !*p || !isdigit((unsigned char)s[1])) return 0;
    *c = (int)(p - COLS), *r = atoi(s + 1) - 1;
    return *c < N && *r >= 0 && *r < N;
}

static int run(int r, int c, int dr, int dc, int who) {
    int n = 0;
    for (r += dr, c += dc; r >= 0 && r < N && c >= 0 && c < N && board[r][c] == who; r += dr, c += dc) n++;
    return n;
}

static int wins(int r, int c, int who) {     /* would `who` on (r, c) make k in a row? */
    static const int D[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
    for (int d = 0; d < 4; d++)
        if (1 + run(r, c, D[d][0], D[d][1], who) + run(r, c, -D[d][0], -D[d][1], who) >= K) return 1;
    return 0;
}

static int choose(int me, int *br, int *bc) { /* win, else block, else nearest the centre; 0 if full */
    int best = -1;
    for (int pass = 0; pass < 2; pass++)
        for (int r = 0; r < N; r++)
            for (int c = 0; c < N; c++)
                if (!board[r][c] && wins(r, c, pass ? 3 - me : me)) return *br = r, *bc = c, 1;
    for (int r = 0; r < N; r++)
        for (int c = 0; c < N; c++) {
            int d = (2 * r - N + 1) * (2 * r - N + 1) + (2 * c - N + 1) * (2 * c - N + 1);
            if (!board[r][c] && (best < 0 || d < best)) best = d, *br = r, *bc = c;
        }
    return best >= 0;
}

static void reply(int ok, const char *id, const char *text) {
    printf("%c%s%s%s\n\n", ok ? '=' : '?', id, *text ? " " : "", text);
    fflush(stdout);
}

int main(int argc, char **argv) {
    char line[4096], out[4096], id[32];
    long garbage_at = 0, illegal_at = 0, genmoves = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-k")) K = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--garbage-at")) garbage_at = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--illegal-at")) illegal_at = atol(argv[i + 1]);
    }
    while (fgets(line, sizeof line, stdin)) {
        char *hash = strchr(line, '#'), *tok[4] = {NULL};
        int nt = 0, r, c, who;
        if (hash) *hash = '\0';
        for (char *p = line; *p; p++) *p = isspace((unsigned char)*p) ? ' ' : (char)tolower((unsigned char)*p);
        for (char *t = strtok(line, " "); t && nt < 4; t = strtok(NULL, " ")) tok[nt++] = t;
        if (!nt) continue;
        id[0] = '\0';
        if (isdigit((unsigned char)tok[0][0])) {      /* a numeric id prefix */
            snprintf(id, sizeof id, "%s", tok[0]);
            memmove(tok, tok + 1, 3 * sizeof *tok), tok[3] = NULL;
            if (!tok[0]) continue;
        }
        const char *cmd = tok[0];
        out[0] = '\0';
        if (!strcmp(cmd, "protocol_version")) reply(1, id, "2");
        else if (!strcmp(cmd, "name")) reply(1, id, "gtp-mnk");
        else if (!strcmp(cmd, "version")) reply(1, id, "1.0");
        else if (!strcmp(cmd, "known_command")) {
            int known = 0;
            for (const char **k = COMMANDS; *k; k++) known |= tok[1] && !strcmp(tok[1], *k);
            reply(1, id, known ? "true" : "false");
        } else if (!strcmp(cmd, "list_commands")) {
            for (const char **k = COMMANDS; *k; k++) strcat(strcat(out, *k), k[1] ? "\n" : "");
            reply(1, id, out);
        } else if (!strcmp(cmd, "boardsize")) {
            int n = tok[1] ? atoi(tok[1]) : 0;
            if (n < 1 || n > MAXN) { reply(0, id, "unacceptable size"); continue; }
            N = n, last_r = -1;
            memset(board, 0, sizeof board);
            reply(1, id, "");
        } else if (!strcmp(cmd, "clear_board")) {
            memset(board, 0, sizeof board);
            last_r = -1;
            reply(1, id, "");
        } else if (!strcmp(cmd, "komi") || !strcmp(cmd, "time_settings") || !strcmp(cmd, "time_left")) {
            reply(1, id, "");
        } else if (!strcmp(cmd, "play")) {
            if (!(who = color(tok[1])) || !tok[2]) reply(0, id, "syntax error");
            else if (!strcmp(tok[2], "pass")) reply(1, id, "");
            else if (!vertex(tok[2], &r, &c) || board[r][c]) reply(0, id, "illegal move");
            else board[r][c] = who, last_r = r, last_c = c, reply(1, id, "");
        } else if (!strcmp(cmd, "genmove")) {
            if (!(who = color(tok[1]))) { reply(0, id, "syntax error"); continue; }
            genmoves++;
            if (genmoves == garbage_at) { printf("banana\n\n"); fflush(stdout); continue; }
            if (genmoves == illegal_at && last_r >= 0) r = last_r, c = last_c;
            else if (!choose(who, &r, &c)) { reply(1, id, "pass"); continue; }
            else board[r][c] = who, last_r = r, last_c = c;
            snprintf(out, sizeof out, "%c%d", COLS[c], r + 1);
            reply(1, id, out);
        } else if (!strcmp(cmd, "showboard")) {
            char *p = out;
            p += sprintf(p, "\n  ");
            for (c = 0; c < N; c++) p += sprintf(p, " %c", COLS[c]);
            for (r = N - 1; r >= 0; r--) {
                p += sprintf(p, "\n%2d", r + 1);
                for (c = 0; c < N; c++) p += sprintf(p, " %c", ".XO"[board[r][c]]);
            }
            reply(1, id, out);
        } else if (!strcmp(cmd, "quit")) {
            reply(1, id, "");
            return 0;
        } else reply(0, id, "unknown command");
    }
    return 0;
}
