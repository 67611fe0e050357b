print("gateway")
