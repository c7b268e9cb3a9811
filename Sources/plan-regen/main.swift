print("plan-regen")
