import { assert, describe, it } from "@effect/vitest"
import { OpenApi } from "effect/http-api"
import { ServiceApi } from "../src/Api.ts"

describe("OpenAPI document of the contract", () => {
  it("marks the v2.0 reads and batch deprecated (section 9.2), not the vehicle list (9.3) nor any v3 operation", () => {
    const spec = OpenApi.fromApi(ServiceApi)
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
})
