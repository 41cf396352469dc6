import ProviderAPI

/// FEP/1 error answers as ProviderErrors (the table of docs/EXTENSIONS.md §2).
package enum ExtensionErrors {
  /// The ProviderError an error answer means. The message is the extension's, with control
  /// characters removed (TerminalText), prefixed by nothing: it is for a person.
  package static func providerError(code: Int, message: String, data: JSONValue?) -> ProviderError {
    let text = TerminalText.escapeMessage(message.isEmpty ? "the extension failed (\(code))" : message)
    let existing = data?["existing"]?.string.map(ItemIdentifier.init)
    let retryAfter = data?["retryAfter"]?.number
    let mapped: ProviderError.Code
    switch code {
    case -1000: mapped = .notAuthenticated
    case -1001: mapped = .filenameCollision
    case -1002: mapped = .syncAnchorExpired
    case -1003: mapped = .insufficientQuota
    case -1004: mapped = .serverUnreachable
    case -1005: mapped = .noSuchItem
    case -1006: mapped = .deletionRejected
    case -1007: mapped = .directoryNotEmpty
    case -2005: mapped = .cannotSynchronize
    case -2009: mapped = .versionNoLongerAvailable
    case -2015: mapped = .localVersionConflictingWithServer
    case 257: mapped = .noPermission
    case 7: mapped = .serverBusy
    case 8: mapped = .itemLocked
    case 3328, -32601: mapped = .featureUnsupported
    case -32800: mapped = .cancelled
    case 1, -32602, -32700, -32600: mapped = .invalidArgument
    // -32002 "not initialized" is a host bug; anything else is transient.
    default: mapped = .ioError
    }
    return ProviderError(mapped, text, existingItem: existing, underlying: Int32(clamping: code), retryAfter: retryAfter)
  }

  /// The transient error of a call the extension's stop cut short.
  static func stopped(_ reason: String) -> ProviderError {
    ProviderError(.serverUnreachable, "extension stopped: \(reason)")
  }
}
