// GatewayApp
