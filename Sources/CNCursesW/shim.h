// ncursesw for Swift: the wide API needs these defines before <ncurses.h>, and Swift cannot import
// macros such as A_BOLD or the stdscr/LINES/COLS globals under Swift 6, hence the inline getters.
#ifndef FOLIO_CNCURSESW_SHIM_H
#define FOLIO_CNCURSESW_SHIM_H
#define _XOPEN_SOURCE_EXTENDED 1
#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <ncurses.h>
#include <stdio.h>
#include <term.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <wchar.h>

static inline WINDOW *folio_stdscr(void) { return stdscr; }
static inline int folio_lines(void) { return LINES; }
static inline int folio_cols(void) { return COLS; }
static inline int folio_colors(void) { return COLORS; }
static inline int folio_color_pairs(void) { return COLOR_PAIRS; }
static inline attr_t folio_a_normal(void) { return A_NORMAL; }
static inline attr_t folio_a_bold(void) { return A_BOLD; }
static inline attr_t folio_a_reverse(void) { return A_REVERSE; }
static inline attr_t folio_a_underline(void) { return A_UNDERLINE; }
static inline attr_t folio_a_dim(void) { return A_DIM; }
static inline attr_t folio_a_italic(void) { return A_ITALIC; }
static inline int folio_key_code_yes(void) { return KEY_CODE_YES; }
static inline int folio_err(void) { return ERR; }
static inline int folio_wcwidth(wchar_t c) { return wcwidth(c); }
static inline mmask_t folio_all_mouse_events(void) { return ALL_MOUSE_EVENTS | REPORT_MOUSE_POSITION; }
static inline mmask_t folio_button3_pressed(void) { return BUTTON3_PRESSED; }
static inline mmask_t folio_button1_clicked(void) { return BUTTON1_CLICKED | BUTTON1_PRESSED; }
static inline mmask_t folio_button4_pressed(void) { return BUTTON4_PRESSED; }
static inline mmask_t folio_button5_pressed(void) { return BUTTON5_PRESSED; }

// Globals Swift 6 refuses to read directly ("not concurrency-safe").
static inline WINDOW *folio_curscr(void) { return curscr; }
static inline FILE *folio_stdout(void) { return stdout; }
static inline FILE *folio_stdin(void) { return stdin; }

// Mouse buttons one at a time: TerminalBackend asks for presses only (no click timing, no motion).
static inline mmask_t folio_button1_pressed(void) { return BUTTON1_PRESSED; }

// terminfo strings: tigetstr returns (char *)-1 for a name that is not a string capability, and
// tiparm is variadic, which Swift cannot call.
static inline const char *folio_tigetstr(const char *name) {
  char *s = tigetstr(name);
  return s == (char *)-1 ? NULL : s;
}
static inline const char *folio_tiparm1(const char *cap, int p1) { return tiparm(cap, p1); }
static inline const char *folio_tiparm2(const char *cap, int p1, int p2) { return tiparm(cap, p1, p2); }

// Whether the terminfo entry of `term` can drive a full-screen program, read without taking the
// terminal (setupterm writes nothing): 1 yes, 0 no entry or a generic type ("dumb": setupterm
// refuses those), -1 no terminfo database, 2 an entry without cursor addressing or clearing.
static inline int folio_terminfo_usable(const char *term) {
  int err = 0;
  TERMINAL *saved = cur_term;
  if (setupterm(term, STDOUT_FILENO, &err) != OK) {
    set_curterm(saved);
    return err < 0 ? -1 : 0;
  }
  char *cup = tigetstr("cup");
  char *clear = tigetstr("clear");
  int usable = cup != NULL && cup != (char *)-1 && clear != NULL && clear != (char *)-1;
  TERMINAL *checked = set_curterm(saved);
  del_curterm(checked);
  return usable ? 1 : 2;
}

// The terminal's size from the kernel (ioctl is variadic too): 0 on success.
static inline int folio_terminal_size(int fd, int *rows, int *cols) {
  struct winsize ws;
  if (ioctl(fd, TIOCGWINSZ, &ws) != 0 || ws.ws_row == 0 || ws.ws_col == 0) return -1;
  *rows = ws.ws_row;
  *cols = ws.ws_col;
  return 0;
}
#endif
