import { CompatibilityPage } from "../src/Compatibility.ts"
import { ConnectionResponse, ConnectionsPage } from "../src/Connection.ts"
import * as Legacy from "../src/Legacy.ts"
import { AppTokenResponse, TokenResponse } from "../src/OAuth.ts"
import { ErrorEnvelope } from "../src/ServiceError.ts"
import { SignalResponse, SignalsPage } from "../src/Signal.ts"
import { SubscriptionResponse, SubscriptionsPage } from "../src/Subscription.ts"
import { WebhookResponse, WebhooksPage } from "../src/Webhook.ts"

// Samples shaped exactly like the spec's sections 2 and 7 (timestamps in the
// canonical form the schemas encode back to).
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

const connectionVehicle = { make: "FORD", model: "Mustang Mach-E", year: 2023, mode: "simulated", powertrainType: "BEV" }
const vehicleRelationship = { data: { id: "veh_1", type: "vehicle" }, links: { related: "/v3/vehicles/veh_1" } }

export const connectionListItem = {
  id: "conn_1",
  type: "connection",
  attributes: {
    permissions: ["read_vehicle_info", "read_odometer"],
    vehicle: connectionVehicle,
    user: { id: "usr_1", externalId: "ext-42" }
  },
  relationships: {
    vehicle: vehicleRelationship,
    user: { data: { id: "usr_1", type: "user" }, links: { related: "/v3/users/usr_1" } }
  },
  meta: { createdAt: at, updatedAt: at },
  links: { self: "/v3/connections/conn_1" }
}

export const connectionsPage = {
  data: [connectionListItem],
  meta: { pageNumber: 1, pageSize: 10, totalCount: 1, orderBy: "createdAt", orderDirection: "DESC" },
  links: { ...pageLinks, next: null }
}

export const connectionResponse = {
  data: {
    id: "conn_1",
    type: "connection",
    attributes: { permissions: ["read_vehicle_info"], vehicle: connectionVehicle },
    relationships: { vehicle: vehicleRelationship, user: { data: { id: "usr_1", type: "user" } } },
    meta: { createdAt: at, updatedAt: at },
    links: { self: "/v3/connections/conn_1" }
  }
}

const webhookRelationship = (id: string) => ({ data: { type: "webhook", id }, links: { related: `/v3/x/${id}` } })

export const subscription = {
  id: "sub_1",
  type: "subscription",
  attributes: { vehicle: connectionVehicle },
  meta: { createdAt: at, updatedAt: at },
  links: { self: "/v3/subscriptions/sub_1" },
  relationships: {
    webhook: webhookRelationship("wh_1"),
    user: webhookRelationship("usr_1"),
    vehicle: webhookRelationship("veh_1")
  }
}

export const subscriptionsPage = {
  data: [subscription],
  meta: { pageNumber: 1, pageSize: 10, totalCount: 1, orderBy: "createdAt", orderDirection: "DESC" },
  links: { ...pageLinks, next: null }
}

export const subscriptionResponse = { data: subscription }

export const webhook = {
  id: "wh_1",
  type: "webhook",
  attributes: {
    name: "Battery alerts",
    triggers: [{ group: "Charge", name: "Voltage", code: "charge-voltage" }],
    data: [{ group: "Odometer", name: "Traveled distance", code: "odometer-traveleddistance" }],
    callbackUri: "https://hooks.example.test/cv",
    errorCallbackUri: "https://hooks.example.test/cv-errors",
    isEnabled: true,
    autoSubscribe: false
  },
  meta: { createdAt: at },
  links: { self: "https://api.example.test/v3/webhooks/wh_1" }
}

export const webhooksPage = {
  data: [webhook],
  meta: { pageNumber: 1, pageSize: 10, totalCount: 1, orderBy: "createdAt", orderDirection: "DESC" },
  links: { ...pageLinks, next: null }
}

export const webhookResponse = { data: webhook }

export const compatibilityEntry = {
  id: "tesla:model-3:2019:2024:bev:us",
  type: "vehicle-model-capability",
  attributes: {
    make: "Tesla",
    model: "Model 3",
    region: "US",
    powertrainType: "BEV",
    years: { start: 2019, end: 2024 },
    capabilities: [
      {
        type: "signal",
        name: "Voltage",
        group: "Charge",
        code: "charge-voltage",
        capability: "read_charge_voltage",
        permission: "read_battery"
      },
      { type: "command", name: "Lock doors", group: "", code: "lock", capability: "control_security", permission: "" }
    ]
  }
}

export const compatibilityPage = {
  data: [compatibilityEntry],
  meta: { page: 1, pageSize: 1, totalCount: 1 },
  links: { self: "/v3/compatible-vehicles" }
}

export const errorEnvelope = {
  errors: [
    {
      status: "401",
      type: "AUTHENTICATION",
      code: "UNAUTHORIZED",
      title: "Unauthorized",
      detail: "The access token is missing or invalid.",
      resolution: { type: "REAUTHENTICATE" },
      suggestedUserMessage: "Please sign in again.",
      links: { about: "https://docs.example.test/errors/authentication#unauthorized" },
      meta: { debug: { applicationId: "app_1", requestId: "req_1", origin: "gateway" } }
    }
  ]
}

export const odometer = { distance: 10432.5 }
export const location = { latitude: 37.4292, longitude: -122.1381 }
export const vin = { vin: "5YJ3E1EA1PF000001" }
export const engineOil = { lifeRemaining: 0.35 }
export const tirePressure = { frontLeft: 219.3, frontRight: 219.1, backLeft: 215.0, backRight: 216.4 }
export const serviceHistory = [
  {
    serviceId: "svc_1",
    serviceDate: at,
    odometerDistance: 12000,
    serviceTasks: [{ taskId: "t1", taskDescription: "Oil change" }],
    serviceDetails: [{ type: "note", value: "Synthetic 5W-30" }],
    serviceCost: { totalCost: 89.9, currency: "USD" },
    serviceType: "DEALERSHIP"
  },
  {
    serviceId: null,
    serviceDate: null,
    odometerDistance: null,
    serviceTasks: [{ taskId: null, taskDescription: null }],
    serviceDetails: [{ type: null, value: null }],
    serviceCost: { totalCost: null, currency: null },
    serviceType: null
  }
]
export const vehicleList = { paging: { count: 2, offset: 0 }, vehicles: ["veh_1", "veh_2"] }
export const batchRequest = { requests: [{ path: "/odometer" }, { path: "/vin" }, { path: "/nope" }] }
export const batchResponse = {
  responses: [
    { path: "/odometer", body: odometer, code: 200, headers: { "sc-data-age": at, "sc-unit-system": "metric" } },
    { path: "/vin", body: vin, code: 200, headers: { "sc-data-age": at } },
    {
      path: "/nope",
      body: { errors: [{ status: "404", type: "RESOURCE_NOT_FOUND", code: "NOT_FOUND", title: "Not Found", detail: "x" }] },
      code: 404,
      headers: {}
    }
  ]
}
export const tokenResponse = {
  access_token: "at-secret-value",
  token_type: "Bearer",
  expires_in: 7200,
  refresh_token: "rt-secret-value"
}

/** Every top-level response schema of the service (bodies of 200s and errors). */
export const responses = {
  SignalsPage,
  SignalResponse,
  ConnectionsPage,
  ConnectionResponse,
  SubscriptionsPage,
  SubscriptionResponse,
  WebhooksPage,
  WebhookResponse,
  CompatibilityPage,
  ErrorEnvelope,
  Odometer: Legacy.Odometer,
  Location: Legacy.Location,
  Vin: Legacy.Vin,
  EngineOil: Legacy.EngineOil,
  TirePressure: Legacy.TirePressure,
  ServiceHistory: Legacy.ServiceHistory,
  VehicleList: Legacy.VehicleList,
  BatchResponse: Legacy.BatchResponse,
  TokenResponse,
  AppTokenResponse
} as const
