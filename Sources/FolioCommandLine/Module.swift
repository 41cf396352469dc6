// FolioCommandLine module.
