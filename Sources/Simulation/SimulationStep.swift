/// One step of a run: a person's action on a machine, a remote actor's change, or a fault. A step
/// carries its own randomness (`salt`: which item, which bytes, which name), so the shrinker can
/// drop steps and the others still choose as they did.
public struct SimulationStep: Sendable, Equatable, CustomStringConvertible {
  public enum Action: String, Sendable, CaseIterable {
    // A person at a machine.
    case create, makeFolder, edit, rename, move, delete, restore, tag, favorite, open, pin, evict, sync
    /// The editor saved, then Folio died before it noticed (the edit is found by the next start).
    case editThenCrash
    case goOffline, comeBack, passwordChanged, signIn, quotaFull, quotaFreed, crash
    // Someone else, on the server directly (the web, another client).
    case remoteCreate, remoteEdit, remoteRename, remoteDelete
  }

  /// The machine acting, or -1 for the remote actor.
  public var machine: Int
  public var action: Action
  public var salt: UInt64
  /// The chance that each call this step makes is the instant its machine's process dies.
  public var crashChance: Double

  public init(machine: Int, action: Action, salt: UInt64, crashChance: Double = 0) {
    self.machine = machine
    self.action = action
    self.salt = salt
    self.crashChance = crashChance
  }

  public var isRemote: Bool { machine < 0 }

  public var description: String {
    let who = machine < 0 ? "web" : SimulationRun.machineName(machine)
    let crash = crashChance > 0 ? " (may crash)" : ""
    return "\(who) \(action.rawValue)\(crash)"
  }

  /// The steps of a seed: how many, which machine, which action, with weights that keep the
  /// actions that write data common and the disruptive ones rare enough for work to get done.
  static func generate(_ random: inout SimulationRandom, machines: Int, steps: Int) -> [SimulationStep] {
    let weighted: [(Action, Int)] = [
      (.create, 12), (.makeFolder, 3), (.edit, 14), (.rename, 5), (.move, 4), (.delete, 4), (.restore, 2),
      (.tag, 4), (.favorite, 2), (.open, 4), (.pin, 2), (.evict, 2), (.sync, 14), (.editThenCrash, 2),
      (.goOffline, 2), (.comeBack, 3), (.passwordChanged, 1), (.signIn, 2), (.quotaFull, 1), (.quotaFreed, 2),
      (.crash, 2), (.remoteCreate, 3), (.remoteEdit, 4), (.remoteRename, 2), (.remoteDelete, 2),
    ]
    let total = weighted.reduce(0) { $0 + $1.1 }
    var out: [SimulationStep] = []
    for _ in 0..<steps {
      var roll = Int(random.next() % UInt64(total))
      var action = Action.sync
      for (a, w) in weighted {
        if roll < w {
          action = a
          break
        }
        roll -= w
      }
      let remote = action.rawValue.hasPrefix("remote")
      let machine = remote ? -1 : Int(random.next() % UInt64(machines))
      let crashChance = !remote && random.chance(0.08) ? 0.25 : 0
      out.append(SimulationStep(machine: machine, action: action, salt: random.next(), crashChance: crashChance))
    }
    return out
  }
}
