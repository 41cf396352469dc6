// The ncursesw implementation of TerminalDevice lands here.
