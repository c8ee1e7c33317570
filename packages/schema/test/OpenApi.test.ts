import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import { OpenApi } from "effect/http-api"
import { ConnectionsQuery, LegacyVehiclesQuery, ServiceApi, SubscriptionsQuery, withPathServers } from "../src/Api.ts"

const spec = OpenApi.fromApi(ServiceApi) as any

const parameter = (path: string, name: string) =>
  spec.paths[path].get.parameters.find((p: { readonly name: string }) => p.name === name).schema

const headersOf = (path: string, method: string, status: string): ReadonlyArray<string> =>
  Object.keys(spec.paths[path][method].responses[status].headers ?? {}).sort()

/** What decoding gives (the value, or the message of the failure). */
const decoded = (schema: Schema.Top, input: unknown) => {
  const result = Schema.decodeUnknownResult(schema as Schema.Codec<unknown, unknown>)(input)
  return Result.isSuccess(result) ? result.success : String(result.failure)
}

describe("OpenAPI document of the contract", () => {
  it("marks the v2.0 reads and batch deprecated (section 9.2), not the vehicle list (9.3) nor any v3 operation", () => {
    const deprecated: Array<string> = []
    for (const [path, item] of Object.entries(spec.paths)) {
      for (const method of ["get", "post", "put", "patch", "delete"] as const) {
        const operation = (item as Record<string, { readonly deprecated?: boolean } | undefined>)[method]
        if (operation?.deprecated === true) deprecated.push(`${method.toUpperCase()} ${path}`)
      }
    }
    assert.deepStrictEqual(deprecated.sort(), [
      "GET /v2.0/vehicles/{id}/engine/oil",
      "GET /v2.0/vehicles/{id}/location",
      "GET /v2.0/vehicles/{id}/odometer",
      "GET /v2.0/vehicles/{id}/service/history",
      "GET /v2.0/vehicles/{id}/tires/pressure",
      "GET /v2.0/vehicles/{id}/vin",
      "POST /v2.0/vehicles/{id}/batch"
    ])
    assert.isDefined(spec.paths["/v2.0/vehicles"]?.get, "the vehicle list is in the document")
  })

  it("declares the limits and defaults of the paging parameters (sections 4.2-4.4, 4.7, 8)", () => {
    const max = Number.MAX_SAFE_INTEGER
    for (const path of ["/v3/connections", "/v3/subscriptions", "/v3/vehicles/{vehicleId}/signals"]) {
      const page = parameter(path, "page")
      const pageSize = parameter(path, "pageSize")
      assert.deepStrictEqual([page.minimum, page.maximum, page.default], [1, max, "1"], path)
      assert.deepStrictEqual([pageSize.minimum, pageSize.maximum, pageSize.default], [1, 100, "10"], path)
      assert.isString(page.description)
      assert.isString(page.pattern)
    }
    const limit = parameter("/v2.0/vehicles", "limit")
    const offset = parameter("/v2.0/vehicles", "offset")
    assert.deepStrictEqual([limit.minimum, limit.maximum, limit.default], [1, 50, "10"])
    assert.deepStrictEqual([offset.minimum, offset.maximum, offset.default], [0, max, "0"])
  })

  it("the documented paging decodes a query as the query schemas do", () => {
    const inputs = [{}, { page: "2" }, { page: "0" }, { page: "x" }, { page: "1.5" }, { pageSize: "1e1" }, { pageSize: "101" }, { page: ["1", "2"] }]
    const cases = [
      ["connections", "list", ConnectionsQuery, inputs],
      ["subscriptions", "list", SubscriptionsQuery, inputs],
      ["legacy", "vehicles", LegacyVehiclesQuery, [{}, { limit: "50" }, { limit: "51" }, { offset: "-1" }, { offset: "x" }, { limit: ["1", "2"] }]]
    ] as const
    for (const [group, endpoint, query, given] of cases) {
      const sent = (ServiceApi.groups as any)[group].endpoints[endpoint].query
      for (const input of given) {
        assert.deepStrictEqual(decoded(sent, input), decoded(Schema.toCodecStringTree(query), input), `${group}.${endpoint} ${JSON.stringify(input)}`)
      }
    }
  })

  it("leaves every object open: the service may add response fields and ignores unknown request fields", () => {
    assert.notInclude(JSON.stringify(spec), "\"additionalProperties\":false")
    assert.isUndefined(spec.components.schemas["Odometer"].additionalProperties)
    assert.strictEqual(spec.components.schemas["Odometer"].type, "object")
  })

  it("declares the response headers the service sets", () => {
    let limited = 0
    for (const [path, item] of Object.entries<Record<string, any>>(spec.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        if (operation.responses["429"] === undefined) continue
        limited++
        assert.include(headersOf(path, method, "429"), "retry-after", `${method} ${path}`)
      }
    }
    assert.isAbove(limited, 10)
    assert.deepStrictEqual(headersOf("/v2.0/vehicles/{id}/vin", "get", "200"), ["deprecation", "link", "sc-data-age", "sc-unit-system", "sunset"])
    assert.deepStrictEqual(headersOf("/v2.0/vehicles/{id}/vin", "get", "403"), ["deprecation", "link", "sunset"])
    assert.deepStrictEqual(headersOf("/v2.0/vehicles/{id}/batch", "post", "200"), ["deprecation", "link", "sunset"])
    assert.deepStrictEqual(headersOf("/v2.0/vehicles", "get", "200"), [])
    assert.deepStrictEqual(headersOf("/oauth/authorize", "get", "302"), ["location"])
    assert.isTrue(spec.paths["/oauth/authorize"].get.responses["302"].headers.location.required)
  })

  it("declares 500 (the OAuth body) on the authorization server's endpoints (fault injection, --failure-rate)", () => {
    const statuses = (path: string, method: string) => Object.keys(spec.paths[path][method].responses).sort()
    assert.deepStrictEqual(statuses("/oauth/token", "post"), ["200", "400", "401", "415", "500"])
    assert.deepStrictEqual(statuses("/oauth/authorize", "get"), ["302", "400", "500"])
    for (const [path, method] of [["/oauth/token", "post"], ["/oauth/authorize", "get"]] as const) {
      const schema = JSON.stringify(spec.paths[path][method].responses["500"].content["application/json"].schema)
      const body = JSON.stringify(spec.paths[path][method].responses["400"].content["application/json"].schema)
      assert.include(schema, "OAuthServerError", `${method} ${path}`)
      assert.notInclude(body, "OAuthServerError", `${method} ${path}`)
    }
    const server = spec.components.schemas["OAuthServerErrorEncoded"]
    assert.deepStrictEqual(server.required, spec.components.schemas["OAuthBadRequestEncoded"].required)
    assert.include(server.required, "error")
  })

  it("declares 415 on the POST endpoints, and the consent's mode=test and login_hint", () => {
    assert.property(spec.paths["/oauth/token"].post.responses, "415")
    assert.property(spec.paths["/v2.0/vehicles/{id}/batch"].post.responses, "415")
    const consent = spec.paths["/oauth/authorize"].get.parameters
    assert.deepStrictEqual(consent.find((p: { readonly name: string }) => p.name === "mode").schema.enum, ["live", "simulated", "test"])
    assert.strictEqual(consent.find((p: { readonly name: string }) => p.name === "login_hint").required, false)
  })

  it("withPathServers sets each path's servers (OpenAPI 3.1 path level), leaves the others and the operations as they are", () => {
    const split = withPathServers((path) => path.startsWith("/oauth") ? "https://auth.example" : path.startsWith("/v3/webhooks") ? "https://manage.example" : undefined)(spec)
    assert.deepStrictEqual(split.paths["/oauth/token"].servers, [{ url: "https://auth.example" }])
    assert.deepStrictEqual(split.paths["/v3/webhooks"].servers, [{ url: "https://manage.example" }])
    assert.notProperty(split.paths["/v3/connections"], "servers")
    assert.deepStrictEqual(split.paths["/oauth/token"].post, spec.paths["/oauth/token"].post)
    assert.notProperty(spec.paths["/oauth/token"], "servers")
    assert.notProperty(split, "servers")
  })

  it("POST /oauth/token declares the User-Agent the spec requires (section 4.6) as a required header; a caller of the contract need not pass it", () => {
    const parameters: ReadonlyArray<any> = spec.paths["/oauth/token"].post.parameters
    const userAgent = parameters.find((p) => p.in === "header" && p.name === "user-agent")
    assert.isDefined(userAgent)
    assert.strictEqual(userAgent.required, true)
    assert.include(userAgent.description, "User-Agent value is required")
    const headers = ServiceApi.groups.oauth.endpoints.token.headers!
    assert.isTrue(Schema.is(headers as Schema.Top)({ authorization: "Basic aWQ6c2VjcmV0" }))
  })
})
