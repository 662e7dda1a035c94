/*
 * pattern_gomoku.c - a pattern-scoring freestyle gomoku engine (five or more
 * in a row wins) speaking the Gomocup protocol (docs/ENGINES.md): a real,
 * fair test opponent. Every empty square within 2 of a stone is scored by the
 * line patterns a stone there makes for itself (attack, weighted x1.1) and
 * denies the opponent (defence) in 4 directions: five, open four, four, open
 * three, broken three, closed three, two, plus a bonus for double threats.
 * So it wins first, then blocks a four, makes an open four, blocks an open
 * three, and so on. Deterministic (ties by scan order) unless run as
 * `pattern_gomoku --seed N`, when a seeded PRNG breaks ties. `--attack P`
 * weighs attack P/100 against defence (default 110; below 100 it defends first,
 * but always takes a five).
 *
 * Build: cc -std=c99 -O2 -Wall -Wextra -Werror -o pattern_gomoku pattern_gomoku.c
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 32
enum { NONE, TWO, THREE, BROKEN3, OPEN3, FOUR, OPEN4, FIVE, NPAT };

static int W = 15, H = 15;          /* board size, x in [0,W) from the left, y in [0,H) from the top */
static int board[MAXN][MAXN];       /* 0 empty, 1 our stone, 2 the opponent's */
static int seeded;                  /* --seed given: break ties at random */
static int attack = 110;            /* --attack P: attack weighted P/100 against defence */
static unsigned long long rng = 88172645463325252ULL;
static const int DX[4] = {1, 0, 1, 1}, DY[4] = {0, 1, 1, -1};

static unsigned next_rand(void) {   /* xorshift64 */
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (unsigned)(rng >> 32);
}

/* L[9]: a line through the candidate square at L[4] (1 = own stone, 0 = empty, 2 = blocked). */
static int run(const int *L) {      /* length of the run of own stones through L[4] */
    int n = 1, i;
    for (i = 3; i >= 0 && L[i] == 1; i--) n++;
    for (i = 5; i < 9 && L[i] == 1; i++) n++;
    return n;
}

static int fives(int *L) {          /* empty squares that would complete five through L[4] */
    int n = 0;
    for (int e = 0; e < 9; e++)
        if (L[e] == 0) L[e] = 1, n += run(L) >= 5, L[e] = 0;
    return n;
}

static int classify(int *L) {      /* the pattern a stone on L[4] makes on this line */
    int mine = 0, open4s = 0, closed = 0;
    if (run(L) >= 5) return FIVE;
    for (int i = 0; i < 9; i++) mine += L[i] == 1;
    int f = mine >= 2 ? fives(L) : 0;
    if (f >= 2) return OPEN4;       /* two ways to five: cannot be stopped */
    if (f == 1) return FOUR;
    if (mine >= 3) {                /* how many squares make an open four? */
        for (int e = 0; e < 9; e++)
            if (L[e] == 0) {
                L[e] = 1, f = fives(L), L[e] = 0;
                open4s += f >= 2, closed |= f == 1;
            }
        if (open4s >= 2) return OPEN3;
        if (open4s == 1) return BROKEN3;
        if (closed) return THREE;
    }
    for (int s = 0; s <= 4; s++) {  /* a free five-window through L[4] holding two own stones */
        int own = 0, blocked = 0;
        for (int i = s; i < s + 5; i++) own += L[i] == 1, blocked |= L[i] == 2;
        if (!blocked && own >= 2) return TWO;
    }
    return NONE;
}

/* Room to grow: over the five-windows through L[4] free of blocks, the sum of (own stones)^2.
   It ranks the squares no pattern tells apart: connected and central first. */
static int room(const int *L) {
    int sum = 0;
    for (int s = 0; s <= 4; s++) {
        int own = 0, blocked = 0;
        for (int i = s; i < s + 5; i++) own += L[i] == 1, blocked |= L[i] == 2;
        sum += blocked ? 0 : own * own;
    }
    return sum;
}

/* The value of a stone of `who` at (x, y), an empty square. */
static long value(int x, int y, int who) {
    int cnt[NPAT] = {0}, L[9], pot = 0;
    for (int d = 0; d < 4; d++) {
        for (int i = -4; i <= 4; i++) {
            int cx = x + i * DX[d], cy = y + i * DY[d];
            int v = cx < 0 || cx >= W || cy < 0 || cy >= H ? 3 : board[cy][cx];  /* 3: off the board */
            L[i + 4] = i == 0 ? 1 : v == who ? 1 : v == 0 ? 0 : 2;
        }
        cnt[classify(L)]++;
        pot += room(L);
    }
    /* tiers 20x apart, so that attack x1.1 beats defence of the same tier plus anything below */
    if (cnt[FIVE]) return 100000000;
    long v = 0, threes = cnt[OPEN3] + cnt[BROKEN3];
    if (cnt[OPEN4] || cnt[FOUR] >= 2 || (cnt[FOUR] && threes)) v = 5000000;  /* wins by force */
    else if (threes >= 2) v = 200000;                                         /* double three */
    return v + cnt[FOUR] * 6000 + cnt[OPEN3] * 5000 + cnt[BROKEN3] * 4000 + cnt[THREE] * 800 + cnt[TWO] * 150 + pot * 3;
}

static int near_stone(int x, int y) {
    for (int j = y - 2; j <= y + 2; j++)
        for (int i = x - 2; i <= x + 2; i++)
            if (i >= 0 && i < W && j >= 0 && j < H && board[j][i]) return 1;
    return 0;
}

/* Choose, record and print our move. */
static void play(void) {
    long best = -1;
    int bx = W / 2, by = H / 2, ties = 0;           /* the centre on an empty board */
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            if (board[y][x] || !near_stone(x, y)) continue;
            long a = value(x, y, 1), s = a >= 100000000 ? 1L << 40 : a * attack / 100 + value(x, y, 2);
            if (s > best) best = s, bx = x, by = y, ties = 1;
            else if (s == best && seeded && next_rand() % (unsigned)++ties == 0) bx = x, by = y;
        }
    for (int i = 0; i < W * H && board[by][bx]; i++) bx = i % W, by = i / W;  /* none near a stone */
    if (board[by][bx]) { printf("ERROR the board is full\n"); return; }
    board[by][bx] = 1;
    printf("%d,%d\n", bx, by);
}

static int place(const char *s, int who) {          /* "x,y": put a stone there, 0 if impossible */
    int x, y;
    if (sscanf(s, "%d,%d", &x, &y) != 2 || x < 0 || x >= W || y < 0 || y >= H || board[y][x]) return 0;
    board[y][x] = who;
    return 1;
}

int main(int argc, char **argv) {
    char line[1024];
    for (int i = 1; i + 1 < argc; i += 2)
        if (!strcmp(argv[i], "--seed"))
            seeded = 1, rng = (strtoull(argv[i + 1], NULL, 10) + 1) * 0x9E3779B97F4A7C15ULL | 1;
        else if (!strcmp(argv[i], "--attack"))
            attack = atoi(argv[i + 1]);
    setvbuf(stdout, NULL, _IOLBF, 0);
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = '\0';
        char cmd[32] = "", *arg = line + strcspn(line, " ");
        sscanf(line, "%31s", cmd);
        for (char *p = cmd; *p; p++) *p = (char)toupper((unsigned char)*p);
        arg += strspn(arg, " ");
        if (!cmd[0]) continue;
        if (!strcmp(cmd, "START") || !strcmp(cmd, "RECTSTART")) {
            int w = 0, h = 0, n = sscanf(arg, "%d,%d", &w, &h);
            if (n == 1 && cmd[0] == 'S') h = w;
            if (w < 5 || h < 5 || w > MAXN || h > MAXN) { printf("ERROR unsupported size\n"); continue; }
            W = w, H = h;
            memset(board, 0, sizeof board);
            printf("OK\n");
        } else if (!strcmp(cmd, "RESTART")) {
            memset(board, 0, sizeof board);
            printf("OK\n");
        } else if (!strcmp(cmd, "INFO")) {
            /* timeout_turn and the clocks: we always answer within a few ms, so nothing to do */
        } else if (!strcmp(cmd, "BEGIN")) {
            play();
        } else if (!strcmp(cmd, "TURN")) {
            if (place(arg, 2)) play();
            else printf("ERROR bad move %s\n", arg);
        } else if (!strcmp(cmd, "TAKEBACK")) {
            int x, y;
            if (sscanf(arg, "%d,%d", &x, &y) == 2 && x >= 0 && x < W && y >= 0 && y < H) board[y][x] = 0;
            printf("OK\n");
        } else if (!strcmp(cmd, "BOARD")) {         /* x,y,1|2 lines until DONE, then our move */
            memset(board, 0, sizeof board);
            while (fgets(line, sizeof line, stdin) && strncmp(line, "DONE", 4)) {
                int x, y, who;
                if (sscanf(line, "%d,%d,%d", &x, &y, &who) == 3 && x >= 0 && x < W && y >= 0 && y < H)
                    board[y][x] = who == 1 ? 1 : 2;
            }
            play();
        } else if (!strcmp(cmd, "ABOUT")) {
            printf("name=\"pattern\", version=\"1.0\", author=\"arena tests\", country=\"--\"\n");
        } else if (!strcmp(cmd, "END")) {
            return 0;
        } else {
            printf("UNKNOWN %s\n", line);
        }
    }
    return 0;
}
