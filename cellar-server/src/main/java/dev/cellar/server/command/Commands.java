package dev.cellar.server.command;

/** The full command table: every family registers its commands here. */
public final class Commands {
  private Commands() {}

  public static CommandTable table() {
    CommandTable t = new CommandTable();
    ConnectionCommands.register(t);
    ServerCommands.register(t);
    StringCommands.register(t);
    KeyspaceCommands.register(t);
    IntrospectionCommands.register(t);
    PubSubCommands.register(t);
    BitCommands.register(t);
    HyperLogLogCommands.register(t);
    ObjectCommand.register(t);
    WaitCommands.register(t);
    ClusterCommand.register(t);
    ModuleCommand.register(t);
    CopyCommand.register(t);
    DatabaseCommands.register(t);
    TransactionCommands.register(t);
    ScriptCommands.register(t);
    FunctionCommands.register(t);
    HashCommands.register(t);
    SetCommands.register(t);
    ListCommands.register(t);
    ZSetCommands.register(t);
    GeoCommands.register(t);
    StreamCommands.register(t);
    StreamGroupCommands.register(t);
    SortCommand.register(t);
    DumpCommands.register(t);
    MigrateCommand.register(t);
    return t;
  }
}
