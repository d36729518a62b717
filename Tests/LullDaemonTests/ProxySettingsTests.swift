import LullTransfer
import Testing

/// How `http_proxy` / `https_proxy` values are read.
@Suite struct ProxySettingsTests {
    @Test func userAndPasswordAreKeptAndPercentDecoded() throws {
        let settings = ProxySettings(environment: [
            "HTTP_PROXY": "http://us%40er:p%3Ass%20w%25rd@proxy.example:3128",
            "https_proxy": "agent:secret@tls-proxy.example",
        ])
        let http = try #require(settings.http)
        #expect(http.host == "proxy.example")
        #expect(http.port == 3128)
        #expect(http.credentials == ProxyEndpoint.Credentials(user: "us@er", password: "p:ss w%rd"))
        let https = try #require(settings.https)
        #expect(https.host == "tls-proxy.example")
        #expect(https.port == 80)
        #expect(https.credentials == ProxyEndpoint.Credentials(user: "agent", password: "secret"))
    }

    @Test func aUserWithoutPasswordHasAnEmptyOneAndNoUserMeansNoCredentials() throws {
        #expect(
            ProxyEndpoint("http://agent@proxy:8080")?.credentials
                == ProxyEndpoint.Credentials(user: "agent", password: "")
        )
        let plain = try #require(ProxyEndpoint("proxy.example:3128"))
        #expect(plain.host == "proxy.example" && plain.port == 3128)
        #expect(plain.credentials == nil)
    }

    @Test func settingsDifferingOnlyInCredentialsAreNotEqual() {
        #expect(
            ProxySettings(environment: ["http_proxy": "http://a:1@p:3128"])
                != ProxySettings(environment: ["http_proxy": "http://a:2@p:3128"])
        )
    }
}

/// Proxy schemes: http and SOCKS5 are used; the rest are refused with a reason, never taken for
/// a plain HTTP proxy or dropped for a direct connection.
@Suite struct ProxySchemeParsingTests {
    @Test func socks5IsUsedWithItsOwnDefaultPort() throws {
        let socks = try ProxyEndpoint(parsing: "socks5h://proxy.example")
        #expect(socks.kind == .socks5 && socks.host == "proxy.example" && socks.port == 1080)
        #expect(try ProxyEndpoint(parsing: "SOCKS5://p:9050").port == 9050)
        #expect(try ProxyEndpoint(parsing: "p:3128").kind == .http)
    }

    @Test func whatCannotBeUsedIsRefusedWithAReason() {
        for (text, words) in [
            ("https://user:pw@proxy:443", "https:// proxy"),
            ("socks4://proxy:1080", "socks4://"),
            ("socks5://user:pw@proxy:1080", "no user/password"),
            ("http://", "not a proxy URL"),
        ] {
            #expect(throws: ProxyEndpoint.Refusal.self, "\(text)") { try ProxyEndpoint(parsing: text) }
            do {
                _ = try ProxyEndpoint(parsing: text)
            } catch {
                #expect(error.reason.contains(words), "\(text): \(error.reason)")
                #expect(!error.reason.contains("pw"), "\(text): the password is not repeated")
            }
        }
    }

    @Test func anUnusableVariableCoversItsSchemeButNotNoProxyHosts() throws {
        let settings = ProxySettings(environment: [
            "HTTPS_PROXY": "https://proxy:443", "http_proxy": "http://proxy:3128", "no_proxy": "internal.example",
        ])
        #expect(settings.https == nil)
        #expect(settings.http?.port == 3128)
        let refused = try #require(settings.unusable(for: "https://files.example/a"))
        #expect(refused.variable == "HTTPS_PROXY" && refused.scheme == "https")
        #expect(settings.unusable(for: "http://files.example/a") == nil)
        #expect(settings.unusable(for: "https://internal.example/a") == nil)
    }
}
