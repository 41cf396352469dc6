import FolioCommandLine

// Not an async top-level: its dispatch_main() would unwind the main thread (MainQueueLoop).
MainQueueLoop.run { await FolioCommand.start() }
