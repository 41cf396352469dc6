import ExtensionHost
import Foundation
import ProviderAPI

extension DomainCheckCommand {
  /// An extension's location: started afresh (a Retry: the breaker and a start failure are
  /// cleared), its top folder read, and what it declared said.
  static func checkExtension(_ provider: ExtensionProvider, _ id: DomainIdentifier) async throws(ProviderError) {
    provider.retryNow()
    let root: Item
    do throws(ProviderError) {
      root = try await provider.item(for: .root)
    } catch {
      await provider.shutdown()
      let tail = provider.lastLogLines.suffix(5)
      if !tail.isEmpty {
        Console.err("the log (\(TerminalText.escape(provider.logFile.path))) ends:")
        for line in tail { Console.err("  " + line) }
      }
      throw error
    }
    let status = await provider.accountStatus()
    await provider.shutdown()
    Console.out("'\(id)': the extension answers; its top folder is \(root.filename.displayString)")
    Console.out("'\(id)': \(provider.traits)")
    if case .online(let used, let quota?) = status {
      Console.out("'\(id)': \(HumanFormat.size(used)) of \(HumanFormat.size(quota)) used")
    }
  }
}
