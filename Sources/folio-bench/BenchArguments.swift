import Foundation

/// The arguments of a `folio-bench` subcommand whose options are all positive numbers
/// (`--runs 3`), with `--help`: one parser for the sftp, s3 and webdav benches.
enum BenchArguments {
  static func parse<Options>(
    _ args: [String], into defaults: Options, usage: String, numbers: [String: WritableKeyPath<Options, Int>]
  ) -> Options {
    var o = defaults
    var i = 0
    while i < args.count {
      let name = args[i]
      if name == "--help" || name == "-h" {
        print(usage)
        exit(0)
      }
      guard let field = numbers[name] else { fail("unknown argument \(name)\n\(usage)") }
      guard i + 1 < args.count, let n = Int(args[i + 1]), n > 0 else { fail("\(name) needs a positive number\n\(usage)") }
      o[keyPath: field] = n
      i += 2
    }
    return o
  }
}
