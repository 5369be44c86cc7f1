package wire

// SocketOps is every request op a box's daemon socket serves (hello, said once
// at admission, among them); the daemon's op table names each once.
var SocketOps = []string{
	OpHello, OpCommFile, OpRegistryList, OpNetList, OpLinkStatus, OpCommReceipts,
	OpWorkspaceSpawn, OpWorkspaceDestroy, OpWorkspaceList, OpPtyScreen, OpPtyInput, OpPtyAttach,
	OpAgentJoin, OpSessionWatch,
}
