import FolioCommandLine

await FolioCommand.start()
