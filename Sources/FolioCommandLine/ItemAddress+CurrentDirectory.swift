import Foundation
import ProviderAPI

extension ItemAddress {
  /// The process's working directory, against which a relative argument is read.
  static var currentDirectory: ItemPath {
    var buf = [CChar](repeating: 0, count: 4096)
    guard getcwd(&buf, buf.count) != nil else { return .root }
    return ItemPath(bytes: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) })
  }
}
