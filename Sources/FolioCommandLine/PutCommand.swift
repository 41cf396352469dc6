import ArgumentParser
import Foundation
import ProviderAPI
import ProviderCore

/// `folio put FILE... FOLDER`: upload files into a remote folder.
///
/// Each file is first copied into the content store and its upload journaled in the index;
/// "queued" is printed only after that commit, so from then on a crash, `kill -9` or a lost
/// connection loses nothing: `folio sync` (or the browser) sends it.
struct PutCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "put",
    abstract: "Upload files into a remote folder.",
    discussion: """
      Prints "queued NAME" once a file is staged and journaled, then uploads it (progress on \
      stderr when it is a terminal) and prints "uploaded NAME". A name already taken in the \
      folder becomes "NAME 2", unless that file already holds the same bytes: then "up to date \
      NAME" is printed and nothing is queued. With --queue-only nothing is sent now: `folio sync` \
      sends it.

      Exits 0 when every file was uploaded, 75 when every file is queued but some could not be \
      sent now (offline, signed out, out of quota: nothing is lost, `folio sync` sends them), 1 \
      when a file could not be queued or the server refused it for good.
      """)

  @Argument(help: "Files on this computer, then the destination folder (NAME:/path).") var arguments: [String]
  @Flag(help: "Stage and journal only; `folio sync` uploads.") var queueOnly = false

  func validate() throws {
    if arguments.count < 2 { throw ValidationError("give at least one file and a destination folder") }
  }

  func run() async throws {
    var leftQueued = false
    try await runReporting { () async throws(ProviderError) in
      let context = try FolioContext.make()
      let (domain, folder) = try await context.resolve(arguments.last!, offline: true)
      if domain.hasDirectContent {
        throw ProviderError(
          .featureUnsupported, "\(folder.path.displayString) is on this computer: copy with `folio cp` instead")
      }
      guard folder.isFolder else { throw ProviderError(.invalidArgument, "\(folder.path.displayString) is not a folder") }
      var sources: [ItemPath] = []
      for argument in arguments.dropLast() {
        let address = try ItemAddress.parse(RawArguments.bytes(of: argument), currentDirectory: ItemAddress.currentDirectory)
        let from = try context.domain(for: address)
        guard from.hasDirectContent else {
          throw ProviderError(.featureUnsupported, "\(TerminalText.escape(argument)) is not a file on this computer")
        }
        sources.append(context.path(for: address, in: from))
      }
      let engine = context.makeSyncEngine()
      var queued: [(Int64, ItemPath)] = []
      var tally = FailureTally(total: sources.count)
      for source in sources {
        do throws(ProviderError) {
          switch try await engine.putUnlessPresent(source, into: folder, in: domain) {
          case .queued(let id):
            queued.append((id, source))
            Console.out("queued \(source.lastComponent?.displayString ?? source.displayString)")
          case .alreadyThere(let item):
            Console.out(
              "up to date \(context.locationName(domain)):\(item.path.displayString) (the server has these bytes; nothing was sent)")
          }
        } catch {
          tally.report(error)
        }
      }
      // Files that could not be queued, or were refused for good, are failures; files queued but
      // not sent yet are not lost.
      var needsPerson = !tally.isEmpty
      if !queueOnly && !queued.isEmpty {
        let progress = ProgressLine(engine.events)
        var outcomes: [(ItemPath, Result<Item, ProviderError>)] = []
        for (id, source) in queued {
          do throws(ProviderError) {
            outcomes.append((source, .success(try await engine.queue.wait(for: id))))
          } catch {
            outcomes.append((source, .failure(error)))
          }
        }
        await progress.finish()
        for (source, outcome) in outcomes {
          switch outcome {
          case .success(let item): Console.out("uploaded \(item.path.displayString)")
          case .failure(let error):
            let name = source.lastComponent?.displayString ?? source.displayString
            if FailureDisposition.of(error) == .fail {
              // Trying again cannot help (a name the server refuses, no permission): not "queued".
              needsPerson = true
              tally.report(
                ProviderError(error.code, "\(name): \(FolioContext.explain(error)); it was not uploaded", existingItem: error.existingItem))
            } else {
              tally.report(
                ProviderError(
                  error.code, "\(name): \(FolioContext.explain(error)); it stays queued for `folio sync`",
                  existingItem: error.existingItem))
            }
          }
        }
      }
      if !needsPerson && !tally.isEmpty {
        tally.say("some files were not uploaded; they stay queued for `folio sync`")
        leftQueued = true
        return
      }
      try tally.finish("some files were not uploaded")
    }
    if leftQueued { throw ExitCode(Console.queuedExitCode) }
  }
}
