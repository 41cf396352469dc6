// FolioConfig module.
