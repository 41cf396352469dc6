extension Theme {
  /// Themes/default-dark.toml, compiled in so that Folio starts with no theme file installed (and a
  /// test keeps the two identical: edit the file, then copy it here). Its decoded values are in
  /// Theme+BuiltInDefinition.swift, which a launch takes without parsing: change them too (another
  /// test says where they differ).
  static let builtInDefaultDarkText = """
    # Folio theme: default-dark — for terminals with a dark background (the default theme).
    #
    # Every UI role gets a style: fg and bg are colors, bold/dim/underline/reverse are true or false.
    # A color is "default" (the terminal's own), an ANSI name ("red", "bright-black", …), a 256-color
    # palette index (208) or "#rrggbb" (shown as its nearest palette color). A bare color is the
    # foreground: tag-orange = 208. A role without fg or bg takes normal's. fg16/bg16 pick the color for
    # 8/16-color terminals when the computed nearest ANSI color would be a poor match.
    # Copy a theme to ~/.config/folio/themes/NAME.toml to change it; `extends = "default-dark"` at the top
    # of a file starts from this theme and changes only the roles written below it.
    # This file is compiled into Folio as well (Sources/BrowserUI/Theme+BuiltIn.swift, kept identical
    # by a test), so Folio starts even when no theme file is installed.

    description = "Dark terminals; the terminal's own background"

    [roles]
    normal               = { fg = "default", bg = "default" }
    dim                  = { fg = 244 }
    header               = { fg = 255, bold = true }

    # Tabs (Browse, Recents)
    tab-active           = { fg = 16, bg = "#5fafff", bold = true, fg16 = "black" }
    tab-inactive         = { fg = 250, bg = 236 }

    # Sidebar: Locations, Favorites, Tags, Recently Deleted
    sidebar              = { fg = 252, bg = 235 }
    sidebar-heading      = { fg = 244, bg = 235, bold = true }
    sidebar-selected     = { fg = 255, bg = 239, bold = true, bg16 = "bright-black" }
    sidebar-focused      = { fg = 16, bg = "#5fafff", bold = true, fg16 = "black" }

    path-bar             = { fg = 110, bg = 236, bold = true }

    # The file list
    list-row             = { fg = "default" }
    list-selected        = { fg = 16, bg = "#5fafff", bold = true, fg16 = "black" }
    list-marked          = { fg = 221, bold = true }
    list-selected-marked = { fg = 16, bg = 221, bold = true, fg16 = "black" }
    list-folder          = { fg = 75, bold = true }
    list-dimmed          = { fg = 242 }
    column-header        = { fg = 244, underline = true }

    # Status line
    status               = { fg = 252, bg = 236 }
    status-message       = { fg = 114, bg = 236 }
    status-error         = { fg = 231, bg = 160, bold = true, bg16 = "red" }

    # Badges
    badge-cloud          = { fg = 117 }
    badge-downloading    = { fg = 75, bold = true }
    badge-uploading      = { fg = 176, bold = true, fg16 = "magenta" }
    badge-queued         = { fg = 244 }
    badge-error          = { fg = 203, bold = true, fg16 = "bright-red" }
    badge-conflict       = { fg = 214, bold = true, fg16 = "yellow" }
    badge-shared         = { fg = 146 }
    badge-pinned         = { fg = 150 }
    badge-favorite       = { fg = 220 }
    badge-decoration     = { fg = 180 }
    badge-excluded       = { fg = 240 }

    # Tags, in the Finder's colors
    tag-red              = { fg = 196 }
    tag-orange           = { fg = 208, fg16 = "yellow" }
    tag-yellow           = { fg = 220 }
    tag-green            = { fg = 40 }
    tag-blue             = { fg = 33, fg16 = "bright-blue" }
    tag-purple           = { fg = 135, fg16 = "magenta" }
    tag-gray             = { fg = 245 }
    tag-custom           = { fg = 252 }

    # Context menu and pickers
    menu                 = { fg = 252, bg = 237 }
    menu-selected        = { fg = 16, bg = "#5fafff", bold = true, fg16 = "black" }
    menu-disabled        = { fg = 243, bg = 237 }
    menu-border          = { fg = 244, bg = 237 }
    menu-heading         = { fg = 255, bg = 237, bold = true }

    # Prompts (rename, confirmation, authentication)
    prompt               = { fg = 252, bg = 237 }
    prompt-input         = { fg = 255, bg = 239, bg16 = "bright-black" }
    prompt-label         = { fg = 75, bg = 237, bold = true }
    prompt-border        = { fg = 75, bg = 237 }

    error                = { fg = 203, bold = true, fg16 = "bright-red" }
    help                 = { fg = 252 }
    help-key             = { fg = 221, bold = true }
    spinner              = { fg = 75 }

    """

  /// The built-in default-dark theme.
  public static let builtInDefaultDark: Theme = {
    do {
      return try load(named: "default-dark", searchPaths: [])
    } catch {
      preconditionFailure("the built-in default-dark theme does not load: \(error)")
    }
  }()

  /// The built-in monochrome theme: ``defaultMonochrome``, no colors.
  public static let builtInMonochrome: Theme = {
    do {
      return try load(named: "monochrome", searchPaths: [])
    } catch {
      preconditionFailure("the built-in monochrome theme does not load: \(error)")
    }
  }()
}
