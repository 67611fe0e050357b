// GatewayCore
