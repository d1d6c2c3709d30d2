from agentcli.cli.main import main

main()
