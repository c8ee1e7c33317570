import { assert, describe, it } from "@effect/vitest"
import { Option, Redacted, Result, Schema } from "effect"
import { Url, UrlParams } from "effect/http"
import { targetOf } from "../src/internal/target.ts"
import { seeded } from "./seed.ts"

/** What `Url.make` (the URL parser) gives for the same request, as `targetOf` gives it. */
const reference = (url: string, params: UrlParams.UrlParams, hash: Option.Option<string>) => {
  const parsed = Url.make(url, params, Option.getOrUndefined(hash))
  return Result.isFailure(parsed)
    ? undefined
    : { href: parsed.success.href, origin: parsed.success.origin, path: parsed.success.pathname + parsed.success.search }
}

/** `targetOf`'s answer, which must be the parser's whenever it gives one. */
const agree = (url: string, params: UrlParams.UrlParams = UrlParams.empty, hash: Option.Option<string> = Option.none()) => {
  const fast = targetOf(url, params, hash)
  if (fast !== undefined) assert.deepStrictEqual(fast, reference(url, params, hash), url)
  return fast
}

const Scheme = Schema.Literals(["http://", "https://", "HTTP://", "Https://", "ftp://", "ws://", "file://", "http:/", "http:", ""])
const Host = Schema.Literals([
  "127.0.0.1", "localhost", "api.example.com", "a-b.c0", "EXAMPLE.com", "127.1", "0x7f.0.0.1", "127.000.0.1", "256.0.0.1",
  "1.2.3.4.5", "1.2.3", "a.1", "a.0x", "a.0x1f", "1e3", "xn--nxasmq6b.com", "xn--a", "a.xn--", "a..b", "a.", ".a", "", "[::1]",
  "user:pw@host", "h\u00e9", "a_b", "a%41", "-a-", "0", "a b", "a\tb"
])
const Port = Schema.Literals(["", ":80", ":443", ":4010", ":0", ":08080", ":65535", ":65536", ":", ":99999", ":1", ":+1", ": 1"])
const Segment = Schema.Literals([
  "/", "/v3", "/vehicles", "/3f2a9c1e-1111-4222-8333-444455556666", "/.", "/..", "/%2e", "/%2E%2e", "/.%2e", "/.well-known", "/...",
  "/a b", "/a%20b", "/%zz", "/%", "/\\", "/a?b", "/?", "/#x", "/\u00e9", "/|", "/^", "/`", "/{x}", "/'", "/\"", "/<", "/~", "/:id",
  "/@", "/a\tb", "/a\nb", "//", "/a;b=c", "/!$&()*+,", "/\u0000", " "
])
const Piece = Schema.Literals(["a", "page", "pageSize", "b c", "\u00e4", "&", "=", "+", "%", "#", "?", "", "1"])

describe("targetOf (a request's URL without the URL parser)", () => {
  it("reads the SDK's own URLs (a root, a path of encoded identifiers, query parameters) as the parser does", () => {
    const urls = [
      "http://127.0.0.1:4010/v3/vehicles/3f2a9c1e-1111-4222-8333-444455556666/signals/odometer-traveleddistance",
      "https://api.connected-vehicle.example/v2.0/vehicles/a%2Fb/odometer",
      "http://localhost:8080/v3/connections",
      "https://auth.example.com/oauth/token",
      "http://10.0.0.255:65535/x/y/"
    ]
    for (const url of urls) assert.isDefined(agree(url), url)
    assert.deepStrictEqual(
      agree("http://127.0.0.1:4010/v3/connections", UrlParams.fromInput({ page: "2", pageSize: "100", "b c": "\u00e4&=" })),
      {
        href: "http://127.0.0.1:4010/v3/connections?page=2&pageSize=100&b+c=%C3%A4%26%3D",
        origin: "http://127.0.0.1:4010",
        path: "/v3/connections?page=2&pageSize=100&b+c=%C3%A4%26%3D"
      }
    )
    // a redacted parameter is sent as its value, as the parser's searchParams gets it
    assert.isDefined(agree("http://127.0.0.1:4010/x", UrlParams.fromInput([["k", Redacted.make("v")]])))
  })

  it("checks each origin it has not just read (the last one read is remembered), whatever came before", () => {
    const sequence = [
      "http://a.example:4010/x", "http://a.example:4010/y/z", "http://A.example:4010/x", "http://a.example:4010/x",
      "http://a.example:80/x", "https://a.example:4010/x", "http://a.example:4010/a b", "http://a.example:4010/x",
      "http://a.exampl:4010/x", "http://a.exampl:4010/x", "http://a.examplee:4010/x", "http://127.0.0.1:4010/x", "http://127.1:4010/x",
      "http://127.0.0.1:4010/v3"
    ]
    const plain = sequence.map((url) => agree(url) !== undefined)
    assert.deepStrictEqual(plain, [true, true, false, true, false, true, false, true, true, true, true, true, false, true])
    assert.strictEqual(targetOf("http://127.0.0.1:4010/v3", UrlParams.empty, Option.none())?.origin, "http://127.0.0.1:4010")
    assert.strictEqual(targetOf("http://127.0.0.2:4010/v3", UrlParams.empty, Option.none())?.origin, "http://127.0.0.2:4010")
  })

  it("leaves to the parser what it would change or refuse", () => {
    for (
      const url of [
        "HTTP://127.0.0.1/x", "http://Example.com/x", "http://127.1/x", "http://0x7f.0.0.1/x", "http://127.0.0.1:80/x",
        "https://a.example:443/x", "http://a.example:080/x", "http://a.example:99999/x", "http://u:p@a.example/x", "http://[::1]/x",
        "http://xn--nxasmq6b.com/x", "http://a.example", "http://a.example/./x", "http://a.example/x/%2E%2e/y", "http://a.example/a b",
        "http://a.example/x?q=1", "http://a.example/x#f", "http://a.example/\u00e9", "http://a.example/a\\b", " http://a.example/x"
      ]
    ) assert.isUndefined(targetOf(url, UrlParams.empty, Option.none()), url)
    assert.isUndefined(targetOf("http://a.example/x", UrlParams.empty, Option.some("f")))
    // a parameter it cannot serialize: the parser decides (and fails with its own error)
    const wiped = Redacted.make("v")
    Redacted.wipeUnsafe(wiped)
    assert.isUndefined(targetOf("http://a.example/x", UrlParams.fromInput([["k", wiped]]), Option.none()))
    assert.isUndefined(targetOf("http://a.example/x", UrlParams.make([["k", undefined as never], ["j", "1"]]), Option.none()))
  })

  it.prop(
    "gives what the parser gives, on generated URLs",
    {
      scheme: Scheme,
      host: Host,
      port: Port,
      path: Schema.Array(Segment).check(Schema.isMaxLength(6)),
      params: Schema.Array(Schema.Tuple([Piece, Piece])).check(Schema.isMaxLength(3)),
      hash: Schema.Option(Piece)
    },
    ({ hash, host, params, path, port, scheme }) => {
      agree(scheme + host + port + path.join(""), UrlParams.fromInput(params), hash)
    },
    { arbitrary: seeded({ runs: 5_000 }) }
  )

  // mostly what the fast path takes, with one odd piece here and there
  const PlainHost = Schema.Literals(["127.0.0.1", "localhost", "api.example.com", "a-b.c0", "10.0.0.255", "127.1", "EXAMPLE.com", "256.0.0.1", "a.1"])
  const PlainPort = Schema.Literals(["", ":4010", ":1", ":65535", ":80", ":443", ":08080"])
  const PlainSegment = Schema.Literals([
    "/", "/v3", "/vehicles", "/3f2a9c1e-1111-4222-8333-444455556666", "/a%2Fb", "/.well-known", "/...", "/~", "/:id", "/@", "/'",
    "/a;b=c", "/!$&()*+,", "/%zz", "/.", "/..", "/%2E%2e", "/a b", "/\u00e9"
  ])
  it.prop(
    "gives what the parser gives, on generated URLs of the kind it reads",
    {
      scheme: Schema.Literals(["http://", "https://"]),
      host: PlainHost,
      port: PlainPort,
      path: Schema.Array(PlainSegment).check(Schema.isMinLength(1), Schema.isMaxLength(6)),
      params: Schema.Array(Schema.Tuple([Piece, Piece])).check(Schema.isMaxLength(3))
    },
    ({ host, params, path, port, scheme }) => {
      agree(scheme + host + port + path.join(""), UrlParams.fromInput(params))
    },
    { arbitrary: seeded({ runs: 2_000 }) }
  )
})
