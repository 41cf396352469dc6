// ProviderCore module.
