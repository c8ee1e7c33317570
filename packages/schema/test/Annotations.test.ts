import { assert, describe, it } from "@effect/vitest"
import { Context } from "effect"
import { HttpApi } from "effect/http-api"
import { EmbedsResponses, ServiceApi } from "@connected-vehicle/schema/Api"

describe("endpoint annotations", () => {
  it("EmbedsResponses marks the legacy batch only: the one success body holding responses to the request", () => {
    const marked: Array<string> = []
    HttpApi.reflect(ServiceApi, {
      onGroup() {},
      onEndpoint({ endpoint, group, mergedAnnotations }) {
        if (Context.getOrUndefined(mergedAnnotations, EmbedsResponses) === true) marked.push(`${group.identifier}.${endpoint.identifier} ${endpoint.method} ${endpoint.path}`)
      }
    })
    assert.deepStrictEqual(marked, ["legacy.batch POST /v2.0/vehicles/:id/batch"])
  })
})
