// Bodies of the signal endpoints shaped exactly like the spec's section 2
// (timestamps in the canonical form the schemas encode back to).
const at = "2025-08-26T10:00:00.000Z"

export const vehicle = {
  id: "veh_1",
  type: "vehicle",
  attributes: { make: "TESLA", model: "Model 3", year: 2024, powertrainType: "BEV", mode: "live" },
  links: { self: "https://api.example.test/v3/vehicles/veh_1" }
}

export const successSignal = {
  id: "charge-voltage",
  type: "signal",
  attributes: {
    code: "charge-voltage",
    name: "Voltage",
    group: "Charge",
    status: { value: "SUCCESS" },
    body: { unit: "volts", value: 240 }
  },
  meta: { retrievedAt: at, oemUpdatedAt: at, ingestedAt: at },
  links: { self: "https://api.example.test/v3/vehicles/veh_1/signals/charge-voltage" }
}
export const errorSignal = {
  ...successSignal,
  id: "location-preciselocation",
  attributes: {
    code: "location-preciselocation",
    name: "Precise location",
    group: "Location",
    status: {
      value: "ERROR",
      error: {
        type: "AUTHENTICATION",
        code: "UNAUTHORIZED",
        title: "Unauthorized",
        detail: "The vehicle owner revoked access.",
        resolution: { type: "REAUTHENTICATE" },
        description: "Ask the owner to connect the vehicle again."
      }
    },
    body: {}
  }
}

export const pageLinks = {
  self: "/v3/vehicles/veh_1/signals?page=1&pageSize=2",
  first: "/v3/vehicles/veh_1/signals?page=1&pageSize=2",
  prev: null,
  next: "/v3/vehicles/veh_1/signals?page=2&pageSize=2",
  last: "/v3/vehicles/veh_1/signals?page=3&pageSize=2"
}

export const signalsPage = {
  data: [successSignal, errorSignal],
  meta: { pageNumber: 1, pageSize: 2, totalCount: 5 },
  links: pageLinks,
  included: { vehicle }
}

export const signalResponse = { data: successSignal, included: { vehicle } }
