import BrowserUI
import Foundation
import ProviderAPI
import Testing

/// The sign-in form names its fields as the location does: a bucket asks for its access key and
/// secret key, not a "user" and a "password" that a person would have to translate.
@Suite struct AuthLabelsTests {
  @Test func aBucketAsksForItsAccessKeyAndSecretKey() {
    DisplayWidth.setUp()
    let d = DomainIdentifier(unchecked: "store")
    let root = FolderLocation(domain: d, identifier: .root, path: .root, name: "store")
    var entry = LocationEntry(domain: d, name: "store", root: root, isRemote: true, hasTrash: false)
    entry.credentialLabels = CredentialLabels(user: "Access key", secret: "Secret key")
    var s = AppState(width: 90, height: 24, start: root, locations: [entry])
    _ = s.start()
    _ = s.reduce(.authenticationRequired(d, retry: [], reason: "no credentials for store"))
    let shown = AppView.render(s).textLines().joined(separator: "\n")
    #expect(shown.contains("Access key") && shown.contains("Secret key"), "\(shown)")
    #expect(shown.contains("Remember the secret key") && !shown.contains("Password"), "\(shown)")
  }
}
