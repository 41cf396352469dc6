import Foundation

/// `POST /v1/_faults` (only on a server started with `--faults`): rules that make the server
/// misbehave on purpose, for tests of clients (docs/PROTOCOL.md, "Fault injection").
public struct FaultRulesRequest: Codable, Sendable, Equatable {
  public var rules: [FaultRule]
  public init(rules: [FaultRule]) { self.rules = rules }
}

/// `GET /v1/_faults` (only with `--faults`): what a test cannot see from outside the server.
public struct FaultStateResponse: Codable, Sendable, Equatable {
  /// Long polls (`GET /v1/changes/wait`) parked at the server now.
  public var waitingPolls: Int
  public init(waitingPolls: Int) { self.waitingPolls = waitingPolls }
}

/// One way to misbehave, for the requests it matches.
public struct FaultRule: Codable, Sendable, Equatable {
  public enum Kind: String, Codable, Sendable {
    /// Wait `delayMs`, then answer normally.
    case delay
    /// Answer `status` (with `retryAfter` as Retry-After) without doing anything.
    case status
    /// Do the work, promise the whole body in Content-Length, send half of it, close the connection.
    case truncate
    /// Close the connection without answering.
    case drop
    /// A listing or change batch with no items (other requests answer normally).
    case empty
    /// Do the work and send the promised number of bytes, but not the right ones (every byte of
    /// the body inverted): a body whose hash differs from `X-Folio-SHA256` (test-plan F06).
    case corrupt
    /// Answer as if the request had no `Range` header: 200 and the whole content (F07).
    case ignoreRange
    /// Stop halfway through the body for `delayMs`, then go on: the upload's body (the server
    /// reads half, waits, reads the rest) or else the answer's. Puts a `kill -9` mid-transfer.
    case stall
  }

  /// Matches every method when nil ("GET", "PUT", …).
  public var method: String?
  /// Matches every path when nil; otherwise paths starting with it ("/v1/items/").
  public var pathPrefix: String?
  public var kind: Kind
  public var status: Int?
  /// The error code in the body of a `status` fault; by default the one for the status.
  public var code: String?
  /// How many matching requests misbehave; nil: all of them until `DELETE /v1/_faults`.
  public var count: Int?
  /// Waited before any kind (the whole fault for `delay`), except `stall`, which waits halfway.
  public var delayMs: Int?
  /// Seconds, sent as Retry-After with a `status` fault.
  public var retryAfter: Int?

  public init(
    method: String? = nil, pathPrefix: String? = nil, kind: Kind, status: Int? = nil, code: String? = nil,
    count: Int? = nil, delayMs: Int? = nil, retryAfter: Int? = nil
  ) {
    self.method = method
    self.pathPrefix = pathPrefix
    self.kind = kind
    self.status = status
    self.code = code
    self.count = count
    self.delayMs = delayMs
    self.retryAfter = retryAfter
  }
}
