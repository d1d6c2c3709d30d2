"""A tiny module for the agentcli demo: it has one typo for the agent to fix."""


def greet(name: str) -> str:
    return f"Helo, {name}!"


if __name__ == "__main__":
    print(greet("world"))
