import Testing

/// The shrunk scripts of the bugs `folio-sim` found, each replayed by ``FolioSimTests``.
enum SimulationRegressions {
  struct Case: Sendable, CustomTestStringConvertible {
    var seed: UInt64
    var script: String
    var bug: String
    var testDescription: String { "seed \(seed): \(bug)" }
  }

  static let all: [Case] = [
    Case(
      seed: 9, script: "-1:remoteCreate:9a289ee1e646bff3,0:edit:aa69a7791c46c73b,-1:remoteRename:8707ec73867f1c46",
      bug: "path-keyed: edits re-created where their renamed file was stayed 'not uploaded' for ever"),
    Case(
      seed: 11, script: "-1:remoteCreate:74ffcb0cd8e94304,0:edit:aa747017c50e2566,1:delete:d22bd5d674e6a120",
      bug: "path-keyed: edits of a file deleted elsewhere, re-created, stayed dirty"),
    Case(
      seed: 33, script: "0:makeFolder:74f2119161c24ca5,1:create:57a35bbb6515d3a0,-1:remoteDelete:11e9b3f18599a792",
      bug: "a new file put into a folder deleted elsewhere before it was sent failed for good"),
    Case(
      seed: 27,
      script: "1:makeFolder:2a1b3b46de4ad356,-1:remoteCreate:27019394a6dba6ff,1:edit:9558f54b56127814,1:sync:f4b56f7e22a8a3de:0.25,-1:remoteRename:cb889ff5661434bb",
      bug: "path-keyed: the children of a folder renamed elsewhere stayed in the index for ever"),
  ]
}
