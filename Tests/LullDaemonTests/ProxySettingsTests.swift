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
