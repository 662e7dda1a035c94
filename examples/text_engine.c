/*
 * text_engine.c - an example engine for the MCTS Arena text protocol
 * (docs/ENGINES.md). It plays tic-tac-toe and every m,n,k board
 * (`newgame tictactoe width=W,height=H,k=K`, also `gomoku`): it wins if it
 * can, else blocks the opponent's immediate win, else plays the free square
 * nearest the centre. Any other game: it stays silent (and loses on time).
 *
 * Build: cc -std=c99 -O2 -Wall -Wextra -Werror -o text_engine text_engine.c
 * Use:   arena engines check 'engine:cmd=./text_engine,protocol=text' --game tictactoe
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXW 26
#define MAXH 30

static int W = 3, H = 3, K = 3;  /* board width, height, stones in a row */
static int playing;              /* 1 while the current game is one we know */
static int board[MAXH][MAXW];    /* 0 empty, 1 first player, 2 second; row 0 = rank 1 */
static int to_move = 1;          /* whose turn it is in the last position */

/* "b3" -> column 1, row 2 (rank 3). Returns 0 if it is not a square of the board. */
static int parse_square(const char *s, int *row, int *col) {
    if (s[0] < 'a' || s[0] > 'z' || s[1] < '0' || s[1] > '9') return 0;
    *col = s[0] - 'a';
    *row = atoi(s + 1) - 1;
    return *col < W && *row >= 0 && *row < H;
}

/* Stones of `who` in a row from (r, c) stepping (dr, dc), (r, c) itself excluded. */
static int run(int r, int c, int dr, int dc, int who) {
    int n = 0;
    for (r += dr, c += dc; r >= 0 && r < H && c >= 0 && c < W && board[r][c] == who; r += dr, c += dc) n++;
    return n;
}

/* Would a stone of `who` on the empty square (r, c) make k in a row? */
static int wins(int r, int c, int who) {
    static const int dirs[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
    for (int d = 0; d < 4; d++) {
        int dr = dirs[d][0], dc = dirs[d][1];
        if (1 + run(r, c, dr, dc, who) + run(r, c, -dr, -dc, who) >= K) return 1;
    }
    return 0;
}

/* Pick a move for `me`: a win, else a block, else the free square nearest the centre.
   Returns 2 for a win, 1 otherwise, 0 if the board is full. */
static int choose(int me, int *br, int *bc) {
    int best = -1;
    for (int pass = 0; pass < 2; pass++)          /* pass 0: can I win? pass 1: must I block? */
        for (int r = 0; r < H; r++)
            for (int c = 0; c < W; c++)
                if (!board[r][c] && wins(r, c, pass == 0 ? me : 3 - me)) {
                    *br = r, *bc = c;
                    return pass == 0 ? 2 : 1;
                }
    for (int r = 0; r < H; r++)                     /* distances doubled to stay in integers */
        for (int c = 0; c < W; c++) {
            int dr = 2 * r - (H - 1), dc = 2 * c - (W - 1), d = dr * dr + dc * dc;
            if (!board[r][c] && (best < 0 || d < best)) best = d, *br = r, *bc = c;
        }
    return best >= 0;
}

int main(void) {
    static char line[65536];
    setvbuf(stdout, NULL, _IOLBF, 0);               /* every answer leaves at its newline */
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = '\0';
        char *cmd = strtok(line, " ");
        if (!cmd) continue;
        if (!strcmp(cmd, "arena")) {                /* handshake: arena 1 */
            printf("id name text-example\nid author MCTS Arena\narenaok\n");
        } else if (!strcmp(cmd, "isready")) {
            printf("readyok\n");
        } else if (!strcmp(cmd, "newgame")) {       /* newgame tictactoe width=3,height=3,k=3 */
            char *game = strtok(NULL, " "), *opt;
            playing = game && (!strcmp(game, "tictactoe") || !strcmp(game, "gomoku"));
            W = H = 3, K = 3;
            while ((opt = strtok(NULL, " ,")) != NULL) {
                if (!strncmp(opt, "width=", 6)) W = atoi(opt + 6);
                else if (!strncmp(opt, "height=", 7)) H = atoi(opt + 7);
                else if (!strncmp(opt, "k=", 2)) K = atoi(opt + 2);
            }
            if (W < 1 || W > MAXW || H < 1 || H > MAXH || K < 1) playing = 0;
        } else if (!strcmp(cmd, "position")) {      /* position startpos [moves M1 M2 ...] */
            char *tok;
            int r, c;
            memset(board, 0, sizeof board);
            to_move = 1;
            while ((tok = strtok(NULL, " ")) != NULL)
                if (parse_square(tok, &r, &c)) board[r][c] = to_move, to_move = 3 - to_move;
        } else if (!strcmp(cmd, "go")) {            /* go movetime MS ...: we answer at once */
            int r, c, found = playing ? choose(to_move, &r, &c) : 0;
            if (found) {
                printf("info depth 1 score %s pv %c%d\n", found == 2 ? "1" : "0.5", 'a' + c, r + 1);
                printf("bestmove %c%d\n", 'a' + c, r + 1);
            }
        } else if (!strcmp(cmd, "quit")) {
            return 0;
        }                                           /* stop and anything unknown: ignored */
    }
    return 0;
}
