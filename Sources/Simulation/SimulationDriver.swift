import Foundation

/// Runs seeds, shrinks a failing one and writes its steps so they replay (issue 15 §3).
public enum SimulationDriver {
  /// Runs one seed (with `steps` instead of the seed's own, when given: a replayed or shrunk script).
  /// A run that passed leaves no files; a failing one keeps its folder.
  public static func run(_ settings: SimulationRun.Settings, steps: [SimulationStep]? = nil) async -> SimulationRun.Outcome? {
    guard let run = try? SimulationRun(settings, steps: steps) else { return nil }
    let outcome = await run.run()
    run.shutDown()
    if !outcome.failed && !settings.keepFiles { run.removeFiles() }
    return outcome
  }

  /// The shortest script found that still fails (delta debugging: drop halves, then quarters, …
  /// of the steps while the run still finds a violation). Each try is a whole run, milliseconds.
  public static func shrink(_ failing: SimulationRun.Outcome, _ settings: SimulationRun.Settings, budget: Int = 400)
    async -> SimulationRun.Outcome
  {
    var best = failing
    var steps = failing.steps
    var tries = 0
    var chunk = max(1, steps.count / 2)
    var quiet = settings
    quiet.echo = false
    quiet.keepFiles = false
    while chunk >= 1 && tries < budget {
      var removedAny = false
      var start = 0
      while start < steps.count && tries < budget {
        var candidate = steps
        candidate.removeSubrange(start..<min(steps.count, start + chunk))
        tries += 1
        if let o = await run(quiet, steps: candidate), o.failed {
          steps = candidate
          best = o
          removedAny = true
        } else {
          start += chunk
        }
      }
      if !removedAny { chunk /= 2 }
    }
    return best
  }

  /// A script as `folio-sim --script` reads it: `machine:action:salt[:crash]`, comma-separated
  /// (machine -1 is the remote actor; salt in hexadecimal).
  public static func script(_ steps: [SimulationStep]) -> String {
    steps.map { s in
      "\(s.machine):\(s.action.rawValue):\(String(s.salt, radix: 16))" + (s.crashChance > 0 ? ":\(s.crashChance)" : "")
    }.joined(separator: ",")
  }

  public static func parseScript(_ text: String) -> [SimulationStep]? {
    var out: [SimulationStep] = []
    for part in text.split(separator: ",") {
      let f = part.split(separator: ":").map(String.init)
      guard f.count >= 3, let m = Int(f[0]), let a = SimulationStep.Action(rawValue: f[1]), let salt = UInt64(f[2], radix: 16)
      else { return nil }
      let crash = f.count > 3 ? Double(f[3]) ?? 0 : 0
      out.append(SimulationStep(machine: m, action: a, salt: salt, crashChance: crash))
    }
    return out
  }
}
