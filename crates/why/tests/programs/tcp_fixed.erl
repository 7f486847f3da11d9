%% fixtures/papers/tcp.erl with both of its bugs fixed (the server loops
%% after rst; the client ACKs {ack, Port, Seq, AckNo}): the good run for the
%% good-run oracle. The module keeps its name so both runs share the entry.
-module(tcp).
-export([main/0, server/3, client/4, ack/5]).

main() ->
    Server = spawn(?MODULE, server, [self(), 50, 500]),
    spawn(?MODULE, client, [Server, 57, 100, client1]),
    spawn(?MODULE, client, [Server, 50, 200, client2]),
    receive
        {data, D} ->
            io:format("main received ~p~n", [D]),
            D
    end.

server(Main, Port, Seq) ->
    receive
        {Client, {syn, Port, ClientSeq}} ->
            Ack = spawn(?MODULE, ack, [Main, Port, ClientSeq + 1, Seq + 1, Client]),
            Client ! {Ack, {syn_ack, ClientSeq + 1, Seq}},
            server(Main, Port, Seq + 1);
        {Client, {syn, _OtherPort, _}} ->
            Client ! rst,
            server(Main, Port, Seq + 1)
    end.

ack(Main, Port, AckNo, Seq, Client) ->
    receive
        {Client, {ack, Port, Seq, AckNo}} ->
            receive
                {Client, {data, Port, D}} -> Main ! {data, D};
                _ -> Main ! {data, error_data}
            end;
        _ ->
            Main ! {data, error_ack}
    end.

client(Server, Port, Seq, Data) ->
    Server ! {self(), {syn, Port, Seq}},
    syn_ack(Port, Data, Seq + 1).

syn_ack(Port, Data, AckNo) ->
    receive
        rst ->
            {port_rejected, Port};
        {Ack, {syn_ack, AckNo, Seq}} ->
            Ack ! {self(), {ack, Port, Seq + 1, AckNo}},
            Ack ! {self(), {data, Port, Data}},
            {Seq + 1, AckNo, Port, Data}
    end.
