import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The system's local time, as the C library knows it (`TZ`, else `/etc/localtime`): what the
/// browser's dates and `folio ls` are shown in when no zone is fixed.
///
/// Foundation's `TimeZone.current` finds the zone's ICU identifier (its canonical ID, through ICU's
/// resource bundles) before it can answer anything: ~1.2 M instructions and ~0.5 MiB of ICU data
/// paged in, on the launch's path to its first frame, for the one number a row needs, the offset
/// from GMT at an instant, which `localtime_r` gives from the system's own time-zone files
/// (docs/BENCHMARKS.md, issue 13, fourth pass).
public enum LocalTime {
  /// The offset of local time from GMT at `date`, in seconds, daylight saving included.
  public static func secondsFromGMT(for date: Date) -> Int {
    let seconds = date.timeIntervalSince1970.rounded(.down)
    guard seconds.isFinite, abs(seconds) < 1e15 else { return 0 }
    var t = time_t(seconds)
    var parts = tm()
    guard localtime_r(&t, &parts) != nil else { return 0 }
    return Int(parts.tm_gmtoff)
  }

  /// The offset in `zone` when one is fixed (tests, a chosen zone), else in local time.
  public static func secondsFromGMT(for date: Date, in zone: TimeZone?) -> Int {
    zone.map { $0.secondsFromGMT(for: date) } ?? secondsFromGMT(for: date)
  }
}
